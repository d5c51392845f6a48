import prettyMs from 'pretty-ms';
import type { LoopEvent } from '../store/events.js';
import { boundedCopy } from './bounded.js';

function clock(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toTimeString().slice(0, 8);
}

/** A duration for people: `1m 5s`, `850ms`. */
export function duration(ms: number): string {
  return prettyMs(Math.max(0, Math.round(ms)), { secondsDecimalDigits: 0, unitCount: 2 });
}

/** What an event says, in a few words. */
export function describeEvent(e: LoopEvent): string {
  const d = e.detail;
  switch (e.kind) {
    case 'started':
      return `started (max ${d.maxIterations} iterations, timeout ${d.timeoutMinutes} min): ${(d.argv as string[] | undefined)?.join(' ') ?? ''}` +
        (d.replacedFailed ? `; replaces a FAILED loop that needed manual intervention (${String((d.replacedFailed as { why?: unknown }).why)})` : '');
    case 'signal':
      return `iteration ${d.iteration}: ${d.step}${d.checkpoint ? `(${d.checkpoint})` : ''} ${d.result} -> ${d.next}`;
    case 'signal_invalid':
      return `ignored an invalid signal: ${d.reason}`;
    case 'stop_requested':
      return `${d.force ? 'force stop' : 'stop'} requested (${d.reason}) by ${d.by}`;
    case 'agent_exit':
      return d.action ? `${d.action}: ${d.why}` : `agent exited (code ${d.exitCode}${d.signal ? `, signal ${d.signal}` : ''})`;
    case 'restart':
      return `restart ${d.attempt}/${d.limit} in ${duration(Number(d.inMs))}`;
    case 'failed':
      return String(d.message);
    case 'stall':
      if (d.kind === 'unknown_command') return `the agent does not know the command ${d.command || 'it was started with'}`;
      if (d.kind === 'hung') return `the agent seems hung (${d.sign}: ${d.detail}); step: ${d.rung}`;
      return d.limit ? `stall limit reached (${d.kind}; ${d.recoveryStep} this iteration, ${d.recoveryTotal} in all)`
        : `suspected stall: ${d.kind}${d.stepTimeout ? ' (step timeout)' : ''}`;
    case 'stall_unrecognized':
      return `stalled on a screen it does not recognise (${d.kind}${d.stepTimeout ? ', step timeout' : ''}); no keys sent`;
    case 'recovery':
      if (d.kind === 'hung') return `hung agent (${d.sign}, decided by ${d.source}): ${d.keys}${d.resume ? ` with --resume ${d.resume}` : ''}`;
      return `recovered a ${String(d.kind).replace(/_/g, ' ')}: sent ${d.keys} (${d.recoveryStep} this iteration, ${d.recoveryTotal} in all)`;
    case 'quota_wait':
      return d.probe ? `still limited; tried again, next try at ${d.nextProbeAt}`
        : `usage limit: ${d.message}; waiting until ${d.resetAt ?? `a try at ${d.nextProbeAt}`}`;
    case 'quota_resume':
      return `quota wait over (${d.why}) after ${duration(Number(d.waitedMs))}`;
    case 'recovered':
      return `adopted from autodeck pid ${(d.from as { pid?: number } | undefined)?.pid ?? '?'}: ${d.action}`;
    case 'hook_block':
      return `Stop hook re-engaged the agent (${d.completed}/${d.total} tasks): ${d.reason}`;
    case 'hook_allow':
      return `Stop hook let the agent stop (${d.rule}${d.outcome ? `, ${d.outcome}` : ''}): ${d.reason}`;
    case 'error':
      return `${d.where ? `${String(d.where)}: ` : ''}${String(d.message)}`;
    case 'internal_error':
      return `internal error in ${String(d.where)}: ${String(d.message)}; the loop stops and fails (stack in the log: autodeck log --json)`;
    case 'budget':
      return `spending limit reached: ${d.tokens} tokens${typeof d.costUsd === 'number' ? `, $${d.costUsd.toFixed(2)}` : ''} (max ${d.maxTokens || '-'} tokens, $${d.maxCostUsd || '-'})`;
    case 'context_limit':
      return `context compacted ${d.compactions} times in iteration ${d.iteration}: stopping the loop`;
    case 'approval': {
      const what = d.command ?? d.path ?? d.url ?? d.tool;
      const word = d.decision === 'deny' ? 'refused' : d.decision === 'allow' ? 'allowed' : String(d.decision);
      const how = d.source === 'pretooluse' ? 'the PreToolUse hook told the agent why' : `sent ${d.keys}`;
      return `${word} ${d.tool} ${what === d.tool ? '' : `${String(what)} `}(${d.rule}${d.retry ? `, try ${d.retry}` : ''}): ${how}`;
    }
    case 'dialog':
      // Claude Code's own dialogs name their words and the option chosen; a profile's dialog rule names itself
      if (d.name === undefined) return `answered the agent's dialog "${d.text}": ${d.choice}${d.retry ? ` (try ${d.retry})` : ''}, sent ${d.keys}`;
      return `answered the ${d.name}: sent ${d.keys}${d.retry ? ` (try ${d.retry})` : ''}`;
    case 'needs_you':
      return `needs you (${String(d.reason).replace(/_/g, ' ')}): ${d.text}${d.rule ? ` [${d.rule}]` : ''}`;
    case 'verify_started':
      return `verify ${d.attempt}/${d.attempts}: ${d.command} (in ${d.cwd})`;
    case 'verify_passed':
      return `verify ${d.attempt} passed in ${duration(Number(d.durationMs))}: ${d.command}`;
    case 'verify_failed': {
      const last = String(d.tail ?? '').split('\n').at(-1) ?? '';
      return `verify ${d.attempt}/${d.attempts} failed: ${d.command} ${d.how} after ${duration(Number(d.durationMs))}${last ? ` (${last.slice(0, 120)})` : ''}; ` +
        (d.final ? 'the loop ends verify_failed' : 'the agent goes back to work');
    }
    case 'verify_cancelled':
      return `verify ${d.attempt} cancelled: ${d.why}`;
    case 'verify_feedback':
      return `told the agent why its verify failed (${d.chars} characters)`;
    case 'worktree':
      if (d.action === 'created') return `worktree ${d.branch} at ${d.path} from ${d.base}${d.note ? `; ${d.note}` : ''}`;
      if (d.action === 'removed') return `worktree removed (${d.why}): ${d.path}; branch ${d.branch} kept`;
      return `worktree kept (${d.state}): ${d.branch} at ${d.path}`;
    case 'ended':
      // a Claude Code session that was not adopted: no iterations of autodeck's to count
      if (d.iterations === undefined) return `ended: ${d.outcome}`;
      return `ended: ${d.outcome}${d.forced ? ' (forced)' : ''} after ${d.iterations} iterations, ${duration(Number(d.activeMs))} active`;
    default:
      return Object.keys(d).length ? JSON.stringify(boundedCopy(d)) : '';
  }
}

/**
 * Control characters shown as escapes: a folder name or an agent's text must never
 * drive the user's terminal (only attach mode passes the agent's bytes through).
 */
export function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** One human line per event (`autodeck run` on stderr, `autodeck log`). */
export function formatEvent(e: LoopEvent, name?: string): string {
  const who = name ?? (e.taskDir.split('/').pop() || e.session);
  const repeats = e.repeats && e.repeats > 1 ? ` (${e.repeats} times in a row${e.lastAt ? `, last at ${clock(e.lastAt)}` : ''})` : '';
  return printable(`${clock(e.at)}  ${who}  ${e.kind}  ${describeEvent(e)}${repeats}`.trimEnd());
}
