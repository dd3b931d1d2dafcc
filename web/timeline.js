// The job's evidence (GET …/evidence: the records of evidence.jsonl) as a
// timeline a person reads: what was asked, who answered with what, what
// followed, and the probes' verdicts, each at its time.
import { el, clock } from './ui.js';

/** One record → `{kind, title, detail}`; kind picks the dot's colour (the title says it in words too). */
export function describe(r) {
  switch (r.type) {
    case 'outcome':
      return { kind: 'outcome', title: `Then: ${followed(r.followed)}`, detail: `episode ${r.episode}` };
    case 'prompt':
    case 'followup':
      return promptLike(r);
    case 'person':
      return { kind: 'human', title: `${ACTS[r.action] ?? r.action} by ${r.by}`, detail: [r.text && `“${oneLine(r.text)}”`, r.key && `key ${r.key}`, r.reason].filter(Boolean).join(' ') };
    case 'verdict':
      return { kind: 'verdict', title: `Probe ${r.probe}: ${r.severity}`, detail: [r.message, r.response && `response: ${r.response}`].filter(Boolean).join(' · ') };
    case 'bind':
      return { kind: 'other', title: `Bind: ${r.action}`, detail: [r.probe, r.group, r.why].filter(Boolean).join(' · ') };
    default:
      return { kind: 'other', title: r.type ?? 'record', detail: oneLine(JSON.stringify(r)) };
  }
}

/** person records' actions (src/supervisor/person-acts.ts) in words. */
const ACTS = { send: 'Sent a line', key: 'Pressed a key', continue: 'Continued', cancel: 'Cancelled', resume: 'Resumed', type: 'Typed a line' };

function promptLike(r) {
  const who = r.answered_by;
  const keys = (r.keys ?? []).join(' ');
  // A person (human:…) or on_unanswered (policy:…) answered; the responder's own policy layer answers as rule:ID.
  if (/^(?:human|policy):/.test(who ?? '')) {
    return { kind: 'human', title: `Answered by ${who}`, detail: [keys && `keys: ${keys}`, r.text && `(${r.text})`, r.why].filter(Boolean).join(' ') };
  }
  const asked = r.prompt ? `“${oneLine(r.prompt)}”` : r.reason;
  const title = r.type === 'followup' ? `Again: ${asked}` : `Asked: ${asked}`;
  const decided = who ? `answered by ${who}${keys ? ` (${keys})` : ''}` : `decided: ${r.decision}`;
  return { kind: 'prompt', title, detail: [r.rule && `rule ${r.rule}`, decided, r.layer && `layer ${r.layer}`, r.why].filter(Boolean).join(' · ') };
}

function followed(f) {
  if (typeof f !== 'string') return String(f);
  if (f.startsWith('exit:')) return `the job ended (exit ${f.slice(5)})`;
  if (f === 'new-prompt') return 'a new question';
  if (f === 'prompt-cleared') return 'the question went away (answered)';
  return f;
}

const oneLine = (s) => {
  const t = String(s).replace(/\s+/g, ' ').trim();
  return t.length > 160 ? `${t.slice(0, 159)}…` : t;
};

/** Renders `records` into the list `ol`, oldest first. */
export function renderTimeline(ol, records) {
  if (!records.length) {
    ol.replaceChildren(el('li', { class: 'muted' }, 'Nothing yet: no question was asked.'));
    return;
  }
  ol.replaceChildren(
    ...records.map((r) => {
      const d = describe(r);
      return el(
        'li',
        { class: `ev-${d.kind}` },
        r.time ? el('time', { datetime: r.time }, clock(r.time)) : null,
        el('span', { class: 'ev-title' }, d.title),
        d.detail ? el('span', { class: 'ev-detail' }, d.detail) : null,
      );
    }),
  );
}
