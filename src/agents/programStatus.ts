import type { AgentState } from '../store/agentState.js';

/**
 * OSC 7501 program status: what Claude Code (2.1.295 and later) tells a terminal that
 * answers its probe (`ESC ] 7501 ; ? BEL`). Observed with 2.1.332:
 *
 *   ESC ] 7501 ; state=working:app=claude-code:msg=<base64 of "Writing hi to x.txt"> BEL
 *   ESC ] 7501 ; state=blocked:app=claude-code:kind=permission:msg=<base64 of "approve Bash: …"> BEL
 *   ESC ] 7501 ; state=blocked:app=claude-code:msg=<base64 of "dialog open"> BEL
 *   ESC ] 7501 ; state=done:app=claude-code BEL      (a turn finished)
 *   ESC ] 7501 ; state=idle:app=claude-code BEL
 *   ESC ] 7501 ; state=clear BEL                      (leaving)
 *
 * Fields are `key=value` joined by `:`; `title` and `msg` are base64. Pure.
 */

export const PROGRAM_STATUS_OSC = 7501;
/** What a terminal that knows the sequence answers to the probe (any reply that starts with `?`). */
export const PROGRAM_STATUS_REPLY = '\x1b]7501;?\x07';

export interface ProgramStatus {
  /** working, blocked, done, idle, error, failed, clear, or a state a later release adds. */
  state: string;
  /** What a blocked program waits on (`permission`), if it says. */
  kind?: string | undefined;
  /** Its own words, decoded (`approve Bash: git push --force origin main`). */
  msg?: string | undefined;
  app?: string | undefined;
}

const MAX_MSG = 500;

/** The status in one sequence's payload (after `7501;`); undefined for the probe or a payload without a state. */
export function parseProgramStatus(payload: string): ProgramStatus | undefined {
  if (payload.startsWith('?')) return undefined;
  const fields = new Map<string, string>();
  for (const part of payload.split(':')) {
    const eq = part.indexOf('=');
    if (eq > 0) fields.set(part.slice(0, eq), part.slice(eq + 1));
  }
  const state = fields.get('state');
  if (!state || !/^[a-z_-]{1,20}$/.test(state)) return undefined;
  const status: ProgramStatus = { state };
  const kind = fields.get('kind');
  if (kind && /^[a-z_-]{1,40}$/.test(kind)) status.kind = kind;
  const app = fields.get('app');
  if (app && /^[\w.-]{1,40}$/.test(app)) status.app = app;
  const msg = decode(fields.get('msg'));
  if (msg) status.msg = msg;
  return status;
}

/** Base64 to one printable line, bounded (the agent's output is untrusted). */
function decode(b64: string | undefined): string | undefined {
  if (!b64 || !/^[A-Za-z0-9+/=]+$/.test(b64)) return undefined;
  // eslint-disable-next-line no-control-regex
  const text = Buffer.from(b64, 'base64').toString('utf8').replace(/[\x00-\x1f\x7f-\x9f]/g, ' ').replace(/\s+/g, ' ').trim();
  return text === '' ? undefined : text.slice(0, MAX_MSG);
}

/**
 * What the status says for recovery, in the hooks' terms: working is busy, blocked waits on
 * a person (a permission, a dialog), done and idle sit at the prompt. `clear` (leaving) and
 * states not known here say nothing.
 */
export function stateOfProgramStatus(s: ProgramStatus): AgentState | undefined {
  switch (s.state) {
    case 'working':
      return 'busy';
    case 'blocked':
      return 'waiting';
    case 'done':
    case 'idle':
      return 'idle';
    default:
      return undefined;
  }
}
