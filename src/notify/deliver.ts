import { childProcess } from '../lazy.js';
import { envFor, titleOf, type NotifyPayload } from './payload.js';

/** How long a notify command or one POST may take before it is given up. */
export const NOTIFY_TIMEOUT_MS = 10_000;
/** POSTs in all for one notification, and the wait before the 2nd, 3rd (doubling). */
export const NOTIFY_ATTEMPTS = 3;
export const NOTIFY_BACKOFF_MS = 1_000;

/**
 * A URL fit for logs and events: its userinfo and query (where tokens go: `?auth=`,
 * `https://user:pass@`) replaced by `***`. Never throws; something that is no URL is hidden whole.
 */
export function redactUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return '(not a URL)';
  }
  const auth = u.username || u.password ? '***@' : '';
  const query = u.search ? '?***' : '';
  return `${u.protocol}//${auth}${u.host}${u.pathname}${query}`;
}

/** Whether a URL is an ntfy topic (ntfy.sh, or a host named `ntfy.*`): it gets a text body and a Title. */
export function isNtfyUrl(raw: string): boolean {
  try {
    const host = new URL(raw).hostname.toLowerCase();
    return host === 'ntfy.sh' || host.startsWith('ntfy.');
  } catch {
    return false;
  }
}

/** A header value of any text: RFC 2047 encoded when it is not plain ASCII (ntfy decodes it). */
function headerText(text: string): string {
  return /^[\x20-\x7e]*$/.test(text) ? text : `=?UTF-8?B?${Buffer.from(text, 'utf8').toString('base64')}?=`;
}

export interface PostRequest {
  body: string;
  headers: Record<string, string>;
}

/** The request for a payload: JSON, or for an ntfy topic the readable text with a Title. Pure. */
export function requestFor(url: string, p: NotifyPayload): PostRequest {
  if (!isNtfyUrl(url)) {
    return { body: JSON.stringify(p), headers: { 'Content-Type': 'application/json', 'User-Agent': 'autodeck' } };
  }
  const lines = [p.text];
  if (p.screen) lines.push('', p.screen);
  const tags = p.reason === 'done' ? 'white_check_mark' : p.reason === 'failed' || p.reason === 'budget' ? 'x' : 'warning';
  return {
    body: lines.join('\n'),
    headers: { 'Content-Type': 'text/plain; charset=utf-8', 'User-Agent': 'autodeck', Title: headerText(titleOf(p)), Tags: tags },
  };
}

export interface DeliveryResult {
  ok: boolean;
  /** Tries made (POST), 1 for a command. */
  attempts: number;
  /** One line for a log, with the URL redacted. */
  message: string;
}

export interface PostOptions {
  timeoutMs?: number;
  attempts?: number;
  backoffMs?: number;
  /** Waits between tries; a test may pass a quicker one. */
  sleep?: (ms: number) => Promise<void>;
}

const wait = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms).unref());

/**
 * POSTs a payload with a timeout per try, retrying a network error, a timeout, a 429 or a
 * 5xx with doubling waits; any other answer is final. Never throws.
 */
export async function postNotification(url: string, p: NotifyPayload, opts: PostOptions = {}): Promise<DeliveryResult> {
  const attempts = opts.attempts ?? NOTIFY_ATTEMPTS;
  const timeoutMs = opts.timeoutMs ?? NOTIFY_TIMEOUT_MS;
  const sleep = opts.sleep ?? wait;
  const shown = redactUrl(url);
  const req = requestFor(url, p);
  let last = '';
  let tried = 0;
  for (let i = 1; i <= attempts; i++) {
    tried = i;
    if (i > 1) await sleep((opts.backoffMs ?? NOTIFY_BACKOFF_MS) * 2 ** (i - 2));
    try {
      const res = await fetch(url, { method: 'POST', body: req.body, headers: req.headers, redirect: 'error', signal: AbortSignal.timeout(timeoutMs) });
      await res.body?.cancel().catch(() => {});
      if (res.ok) return { ok: true, attempts: i, message: `notified ${shown} (HTTP ${res.status})` };
      last = `HTTP ${res.status}`;
      if (res.status !== 429 && res.status < 500) break;
    } catch (err) {
      const e = err as Error & { cause?: { code?: string } };
      // The error text may quote the URL; only a fixed word goes out.
      last = e.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : e.cause?.code ?? e.name ?? 'network error';
    }
  }
  return { ok: false, attempts: tried, message: `could not notify ${shown}: ${last}` };
}

export interface CommandOptions {
  timeoutMs?: number;
  /** The environment the command starts from (AUTODECK_EVENT_* are added). */
  env: NodeJS.ProcessEnv;
}

/**
 * Runs the user's command without a shell: the payload as JSON on stdin and as
 * AUTODECK_EVENT_* variables; killed after the timeout. Resolves when it ends, never throws.
 */
export function runNotifyCommand(argv: readonly string[], p: NotifyPayload, opts: CommandOptions): Promise<DeliveryResult> {
  const timeoutMs = opts.timeoutMs ?? NOTIFY_TIMEOUT_MS;
  const name = argv[0] ?? '';
  return new Promise((resolve) => {
    let settled = false;
    const done = (ok: boolean, message: string): void => {
      if (settled) return;
      settled = true;
      resolve({ ok, attempts: 1, message });
    };
    let child;
    try {
      child = childProcess().spawn(name, argv.slice(1), {
        env: { ...opts.env, ...envFor(p) }, stdio: ['pipe', 'ignore', 'pipe'], timeout: timeoutMs, killSignal: 'SIGKILL',
      });
    } catch (err) {
      done(false, `notify command ${name}: ${(err as Error).message.split('\n')[0]}`);
      return;
    }
    let stderr = '';
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (s: string) => { if (stderr.length < 300) stderr += s; });
    child.on('error', (err: NodeJS.ErrnoException) => done(false, `notify command ${name}: ${err.code ?? err.message}`));
    child.on('close', (code, signal) => {
      if (code === 0) done(true, `notify command ${name}: done`);
      else if (signal === 'SIGKILL') done(false, `notify command ${name}: killed after ${timeoutMs} ms`);
      else done(false, `notify command ${name}: exit ${code ?? signal}${stderr.trim() ? `: ${stderr.trim().split('\n')[0]!.slice(0, 200)}` : ''}`);
    });
    // A command that does not read its stdin is fine: EPIPE is no failure.
    child.stdin?.on('error', () => {});
    child.stdin?.end(`${JSON.stringify(p)}\n`);
  });
}
