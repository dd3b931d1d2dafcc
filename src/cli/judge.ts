/**
 * `nightshift judge PATH… [--agent FORMAT] [--profile P] [--compare P2] [--json]`:
 * re-judges stored agent transcripts offline, event by event through the
 * monitor a live job uses (src/agents/judge.ts). No daemon.
 */
import type { Command } from 'commander';
import { judgeTranscript, summarise, type TranscriptReport } from '../drill/judge.js';
import { loadProbeConfig, type ProbeConfig } from '../probes/profiles-file.js';
import type { ProbeProfile } from '../probes/index.js';
import { parseTranscriptFormat, readTranscript, transcriptFiles, TRANSCRIPT_FORMATS, type TranscriptFormat } from '../adapters/stored.js';
import { probesFile } from '../supervisor/agent-option.js';
import { InputError, isInputError } from '../util/errors.js';
import { defaultRulesPath } from './common.js';
import { describeError, EXIT } from './exit.js';
import { formatSummary, formatTranscript } from './judge-text.js';

interface JudgeFlags {
  agent?: string;
  profile?: string;
  compare?: string;
  rules?: string;
  json?: boolean;
}

export function registerJudge(program: Command): void {
  program
    .command('judge')
    .description('re-judge stored agent transcripts (files or folders) with the probes, as a live job would have')
    .argument('<paths...>', 'transcripts, or folders searched for *.jsonl (e.g. ~/.claude/projects)')
    .option('--agent <format>', `transcript format, instead of detecting it: ${TRANSCRIPT_FORMATS.join(', ')}`)
    .option('--profile <name>', 'probe profile from probes.yaml (default: default)')
    .option('--compare <name>', 'also judge with this profile, side by side')
    .option('--rules <path>', 'rules directory holding probes.yaml (default: the shipped rules/)')
    .option('--json', 'one JSON object per transcript per line, then a summary object')
    .action(async (paths: string[], flags: JudgeFlags) => {
      process.exitCode = await judge(paths, flags);
    });
}

async function judge(paths: string[], flags: JudgeFlags): Promise<number> {
  const format = flags.agent === undefined ? undefined : parseTranscriptFormat(flags.agent);
  const config = await probeConfig(flags.rules ?? defaultRulesPath());
  const profile = profileOf(config, '--profile', flags.profile);
  const compare = flags.compare === undefined ? undefined : profileOf(config, '--compare', flags.compare);
  const { files, errors } = await transcriptFiles(paths);
  const reports: TranscriptReport[] = [];
  for (const file of files) {
    const report = await judgeFile(file, format, profile, compare).catch((e: unknown) => {
      if (!isInputError(e)) throw e;
      errors.push(e);
      return undefined;
    });
    if (!report) continue;
    reports.push(report);
    process.stdout.write(`${flags.json ? JSON.stringify(report) : `${formatTranscript(report)}\n`}\n`);
    for (const p of report.problems) process.stderr.write(`nightshift: warning: ${p}\n`);
  }
  const summary = summarise(reports, errors.map(describeError), profile.name, compare?.name);
  process.stdout.write(flags.json ? `${JSON.stringify(summary)}\n` : `${formatSummary(summary)}\n`);
  for (const e of errors) process.stderr.write(`nightshift: ${describeError(e)}\n`);
  return errors.length ? EXIT.input : EXIT.ok;
}

async function judgeFile(file: string, format: TranscriptFormat | undefined, profile: ProbeProfile, compare: ProbeProfile | undefined): Promise<TranscriptReport> {
  return judgeTranscript(await readTranscript(file, format), profile, compare);
}

async function probeConfig(rulesPath: string): Promise<ProbeConfig> {
  const file = probesFile(rulesPath);
  if (!file) throw new InputError(`--rules ${JSON.stringify(rulesPath)}: no probes.yaml there`);
  return loadProbeConfig(file);
}

function profileOf(config: ProbeConfig, flag: string, name: string | undefined): ProbeProfile {
  if (name === undefined) return config.profile();
  if (config.profiles.has(name)) return config.profile(name);
  throw new InputError(`${flag} ${JSON.stringify(name)}: unknown probe profile; known: ${[...config.profiles.keys()].join(', ')} (in ${config.file})`);
}
