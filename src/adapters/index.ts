/** The adapters by agent kind, and the public surface of this folder. */
import type { AgentKind } from '../core/agent-events.js';
import { claudeAdapter } from './claude.js';
import { codexAdapter } from './codex.js';
import { geminiAdapter } from './gemini.js';
import { genericAdapter } from './generic.js';
import type { AgentAdapter } from './types.js';

const ADAPTERS: Readonly<Record<AgentKind, AgentAdapter>> = {
  claude: claudeAdapter,
  codex: codexAdapter,
  gemini: geminiAdapter,
  generic: genericAdapter,
};

export function adapterFor(kind: AgentKind): AgentAdapter {
  return ADAPTERS[kind];
}

export { detectAgent, parseAgentKind, type AgentAdapter, type AgentJob, type ParseResult } from './types.js';
export { TranscriptFollower, type FollowOptions, type ReadPosition, type ResumePoint } from './follow.js';
export { canonicalCall, errorHead, fingerprint } from './normalise.js';
