/**
 * Quota / usage-limit stops: finding the message on a screen or in a transcript
 * entry. Its reset clause is turned into an instant by resetTime.ts.
 */

export interface QuotaMatch {
  /** The screen line (or first transcript line) that carries the stop, trimmed. */
  line: string;
  /** The reset clause ("resets 5am (UTC)", "try again in 20s", "|1749924000"), when it has one. */
  resetText?: string;
  /**
   * A generic rate limit (`429`, "rate limit exceeded", "too many requests", "throttled",
   * "quota exceeded") with no usage-limit wording and no reset: a transient limit, waited
   * out with a growing back-off, not a usage-limit stop that lifts at a named time.
   */
  transient?: boolean;
  /**
   * The agent scheduled its own resume (Claude Code 2.1.332: "Continuing automatically at
   * 9:30pm"): nothing is to be typed; the time it names is the reset.
   */
  selfResume?: boolean;
}

/**
 * A stop line: `head` must match at the start of the line once leading decorations
 * (`⎿`, `■`, `✕ [`, `⚡`, box rules, bullets) are stripped, so prose or a diff that merely
 * mentions a limit does not match; `need`, when given, must occur in that line or the next
 * three (API error dumps wrap). `mid` patterns are JSON fields matched anywhere in a line.
 */
interface StopPattern {
  head?: RegExp;
  mid?: RegExp;
  need?: RegExp;
  /** Where the wording comes from: `spec` (CLAUDE-CODE.md) or `transcribed <source>`. */
  from: string;
  /** Only a line the agent itself wrote: not a tool's output (`⎿ …`, or indented four or more). */
  agentsOwn?: boolean;
}

/** The words of a generic rate limit. */
const GENERIC_WORDS = /\b429\b|\btoo many requests\b|\brate[ -]?limit(?:ed|ing)?\b(?:[^\n]*\b(?:exceeded|reached|hit)\b)?|\bthrottl(?:ed|ing|e)\b|\bquota (?:exceeded|exhausted)\b|\bRESOURCE_EXHAUSTED\b|\brate_limit(?:_error)?\b/i;
/**
 * A line that is a generic rate limit on its own: the phrase leading the line (`Too Many
 * Requests`, `Rate limit exceeded.`, `Throttled`, `Quota exceeded for …`, `429 Too Many
 * Requests`, `HTTP 429`), or an error that names it (`Request failed with status 429`).
 */
const GENERIC_HEAD = /^(?:(?:HTTP(?:\/[\d.]+)? |status |code )?429\b|too many requests\b|rate[ -]?limit(?:ed)?(?: (?:exceeded|reached|hit))?\b[.!:]?(?:\s|$)|(?:[\w-]+ ){0,3}(?:(?:was|were|is|are|been|being|got|get) )*throttl(?:ed|ing)\b|quota (?:exceeded|exhausted)\b|resource[_ ]exhausted\b|(?:request |requests )?(?:failed|rejected)\b[^\n]*\b(?:429|too many requests|rate[ -]?limit(?:ed)?|throttl\w*)\b)/i;
/** A usage limit that lifts at a time: its wording, not a generic one. */
const USAGE_WORDS = /\b(?:usage|session|weekly|daily|monthly|hourly|5-hour|five-hour|opus|sonnet|plan|spend(?:ing)?|credits?|extra usage)\b[^\n]*\blimit\b|\blimit will reset\b|\bout of (?:[\w-]+ ){0,2}(?:usage|credits?)\b|\byou(?:'ve| have)? (?:hit|reached) your\b/i;

const STOP_PATTERNS: readonly StopPattern[] = [
  // `Claude AI usage limit reached|<epoch>`, `Claude usage limit reached. Your limit will reset at 1pm (…)`
  { head: /^Claude (?:AI )?usage limit reached\b/i, from: 'spec' },
  // `5-hour limit reached ∙ resets 5am`, `Opus weekly limit reached ∙ resets Oct 31, 9am`;
  // Gemini `Usage limit reached for gemini-3-flash-preview. Access resets at 10:57 PM GMT-3.`
  // (transcribed, google-gemini/gemini-cli#22643); OpenAI `Rate limit reached for gpt-4o …`.
  {
    head: /^(?:[\w-]+ )?(?:5-hour|five-hour|session|weekly|daily|monthly|hourly|usage|quota|opus|sonnet|plan|account|spend|spending|credit|token) limit (?:reached|exceeded|hit)\b/i,
    from: 'spec',
  },
  // A rate limit is a stop with a reset or a model named (OpenAI's `Rate limit reached for gpt-4o … try
  // again in 20s`); a bare `Rate limit exceeded` is as likely a tool's output (an HTTP API) as the agent's.
  { head: /^(?:[\w-]+ )?rate limit (?:reached|exceeded|hit)\b.*\b(?:resets?|try again|retry after|for)\b/i, from: 'spec' },
  // `Sorry, your usage limit reached.`, `Your limit will reset at 11am tomorrow` (the older sentences)
  { head: /^(?:Sorry,? )?(?:your )?usage limit (?:has been )?reached\b/i, from: 'spec' },
  { head: /^Your (?:usage )?limit will reset\b/i, from: 'spec' },
  // `usage limit · resets in: 3 hours` (cheapestinference/claude-auto-retry test/patterns.test.js):
  // a bare "usage/rate limit" counts only with a reset clause on the same line.
  { head: /^(?:[\w-]+ )?(?:(?:usage|rate) )?limit\b[^\n]*\bresets?\b/i, from: 'transcribed claude-auto-retry' },
  // `You're out of extra usage · resets 3pm` (claude-auto-retry), `You are out of credits`.
  { head: /^You(?:'re| are) out of (?:[\w-]+ ){0,2}(?:usage|credits?|quota)\b/i, from: 'transcribed claude-auto-retry' },
  // `Please try again in 5 hours` (claude-auto-retry): a delay of minutes or more, alone on its line.
  { head: /^(?:Please )?try again in \d+(?:\.\d+)?\s*(?:minutes?|mins?|hours?|hrs?|h|days?)\b/i, from: 'transcribed claude-auto-retry' },
  // `You've hit your limit · resets 2am (Europe/Paris)`, `… your session|weekly|Opus|Sonnet limit …`;
  // Codex `You've hit your usage limit. … try again in 5 days 22 hours 11 minutes.` (transcribed,
  // openai/codex#3899, #3124, #26668); Gemini `You have reached your daily gemini-2.5-pro quota
  // limit.` (transcribed, google-gemini/gemini-cli#3796).
  { head: /^You(?:'?ve| have)? (?:hit|reached) (?:your|the) (?:[\w.-]+ ){0,3}(?:limit|quota)\b/i, from: 'spec' },
  // `API Error: 429 … rate_limit_error …`, `API Error: Request rejected (429) · …`; Gemini
  // `✕ [API Error: {"error":{… "code": 429 … RESOURCE_EXHAUSTED …` (transcribed, gemini-cli#1800).
  { head: /^API Error\b/i, need: /\b429\b|rate_limit|RESOURCE_EXHAUSTED|quota/i, from: 'spec' },
  { mid: /\btype\\?"?\s*:\s*\\?"rate_limit_error\b/, from: 'spec' },
  // Gemini: `You have exhausted your capacity on this model. Your quota will reset after 53s.`
  // (transcribed, router-for-me/CLIProxyAPI#1702), `You have exhausted your daily quota on this
  // model.` (gemini-cli#15576), the raw `"status": "RESOURCE_EXHAUSTED"` (gemini-cli#1848).
  { head: /^You have exhausted your (?:[\w-]+ )?(?:quota|capacity)\b/i, from: 'transcribed gemini-cli' },
  { head: /^Quota exceeded\b/i, from: 'transcribed gemini-cli' },
  { mid: /\bstatus\\?"?\s*:\s*\\?"RESOURCE_EXHAUSTED\b/, from: 'transcribed gemini-cli#1848' },
  // Codex after its own retries: `stream error: exceeded retry limit, last status: 429 Too Many
  // Requests` (transcribed, openai/codex#36823); its JSON `"type":"usage_limit_reached"`
  // (transcribed, earendil-works/pi#4172).
  { head: /^(?:[\w ]+: )?exceeded retry limit\b.*\b429\b/i, from: 'transcribed openai/codex#36823' },
  { mid: /\btype\\?"?\s*:\s*\\?"usage_limit_reached\b/, from: 'transcribed earendil-works/pi#4172' },
  // Aider (litellm): `The API provider has rate limited you. Try again later or check your
  // quotas.` — a stop only when no `Retrying in …` follows (transcribed, Aider-AI aider/exceptions.py).
  { head: /^The API provider has rate limited you\b/i, from: 'transcribed aider exceptions.py' },
  // A generic rate limit said as an error of the agent's: `Error: 429 Too Many Requests`,
  // `error: rate limit exceeded`, `Request throttled (429)`, `HTTP 429`, `✕ Too Many Requests`.
  // Not in a tool's output (under `⎿`, or indented as its continuation): a tool may print these words about another API.
  { head: GENERIC_HEAD, agentsOwn: true, from: 'generic rate limit' },
];

/**
 * Warnings, not stops: `Approaching usage limit`, `You've used 92% of your session limit ·
 * resets …` (CLAUDE-CODE.md), Codex `⚠ Heads up, you've used over 75% of your 5h limit.`
 * (transcribed, openai/codex tui). Checked first, so a warning line never counts.
 */
const WARNING_HEADS: readonly RegExp[] = [/^Approaching\b/i, /^You(?:'?ve| have) used\b/i, /^Heads up\b/i, /^You (?:are|will) (?:approaching|reach|be)\b/i];

/**
 * A usage gauge anywhere on the line is a warning too: Codex's footer
 * `⚠ 5h limit: 8% left · resets at 20:16 · /status`, `only <1% left` (captured, 0.171.0).
 */
const GAUGE = /\b(?:only )?<?\d+(?:\.\d+)?% (?:left|remaining)\b/i;

/**
 * A retry still in progress: Claude Code's `Session limit reached · Retrying in 2s (…) · attempt
 * 1/10` (CLAUDE-CODE.md: "an API retry is busy too"), aider's `Retrying in 0.2 seconds...`,
 * Codex `Re-connecting... 1/5` / `retrying 1/5 in 200ms`. Such a line at or after the last stop
 * line means the agent is busy, so there is no quota stop (yet): the agent may still succeed,
 * and a later final failure prints the stop line again below the retries.
 */
const BUSY_RETRY: readonly RegExp[] = [
  /\bRetrying in\b/i,
  /\battempt \d+\s*\/\s*\d+/i,
  /\bRe-?connecting\b.*\d+\s*\/\s*\d+/i,
  /\bretrying \d+\s*\/\s*\d+/i,
];

/** A detail line hung under a status line (`└ …`, `⎿ …`): the status above it is its headline. */
const DETAIL = /^\s*[└⎿]/;

/**
 * Finds the last quota stop in screen text (or a transcript message). Returns undefined for
 * warnings, for a retry still running, and for text that merely mentions a limit.
 */
export function findQuotaMessage(text: string): QuotaMatch | undefined {
  const found = findQuotaStop(text);
  if (!found) return undefined;
  const { at: _at, ...match } = found;
  return match;
}

/** As findQuotaMessage, with the stop line's number in `text` (0-based). */
export function findQuotaStop(text: string): (QuotaMatch & { at: number }) | undefined {
  const lines = text.split(/\r?\n/).map(normalise);
  const at = lastStopLine(lines);
  if (at === undefined) return undefined;
  // a retry at or after the stop, or in the status line the stop hangs under (Codex's
  // `• Server is busy, reconnecting 1/2 (0s • esc to interrupt)` over `└ Exceeded retry limit …`)
  const from = DETAIL.test(lines[at]!) && at > 0 ? at - 1 : at;
  if (lines.slice(from).some((l) => BUSY_RETRY.some((re) => re.test(l)))) return undefined;
  const logical = logicalLine(lines, at);
  const resumeAt = selfResumeTime(lines.slice(Math.max(0, at - 3)));
  const resetText = resumeAt ?? resetClause(logical);
  const line = lines[at]!.trim();
  const transient = resetText === undefined && GENERIC_WORDS.test(logical) && !USAGE_WORDS.test(logical);
  return {
    line,
    at,
    ...(resetText !== undefined ? { resetText } : {}),
    ...(transient ? { transient: true } : {}),
    ...(resumeAt !== undefined ? { selfResume: true } : {}),
  };
}

/**
 * Claude Code's own scheduled resume near the stop (`Continuing automatically at 9:30pm ·
 * Esc to cancel`, `set to continue automatically at 9:30pm`): the time it names, as a reset clause.
 */
const SELF_RESUME = /\b(?:Continuing|continue|resuming|resume) automatically (at [^·|\n]*\d[^·|\n]*)/i;

function selfResumeTime(lines: readonly string[]): string | undefined {
  for (let i = lines.length - 1; i >= 0; i--) {
    const m = SELF_RESUME.exec(lines[i]!);
    if (m) return m[1]!.trim();
  }
  return undefined;
}

function lastStopLine(lines: string[]): number | undefined {
  for (let i = lines.length - 1; i >= 0; i--) {
    if (isStopLine(lines, i)) return i;
  }
  return undefined;
}

function isStopLine(lines: string[], i: number): boolean {
  const bare = stripDecorations(lines[i]!);
  // No letter or digit (most of a screen is blank): no pattern can match, `mid` ones included.
  if (bare === '') return false;
  // `error: usage limit reached — …`, `Error: You've hit your usage limit`: the message after an error label
  const unlabelled = bare.replace(ERROR_LABEL, '');
  if (WARNING_HEADS.some((re) => re.test(bare) || re.test(unlabelled)) || GAUGE.test(bare)) return false;
  return STOP_PATTERNS.some((p) => {
    if (p.mid) return p.mid.test(lines[i]!);
    if (!p.head?.test(bare) && !p.head?.test(unlabelled)) return false;
    if (p.agentsOwn && TOOL_OUTPUT.test(lines[i]!) && !/\b(?:API )?Error\b[^\n]*\b429\b/i.test(lines[i]!)) return false;
    return !p.need || p.need.test(lines.slice(i, i + 4).join(' '));
  });
}

/** A tool's output as Claude Code and Codex show it: under `⎿`/`└`, or its indented continuation. */
const TOOL_OUTPUT = /^\s*[⎿└]|^\s{4,}\S/;

/** An error label in front of a message: `error:`, `Error -`, `Claude error:`, `[ERROR]`. */
const ERROR_LABEL = /^(?:(?:\[?(?:[\w-]+ )?(?:error|failed|failure)\]\s*[:·—–-]*|(?:[\w-]+ )?(?:error|failed|failure)\s*[:·—–-]+)\s*)+/i;

/** NBSP (Claude Code's prompt) and typographic apostrophes would defeat the patterns. */
export function normalise(line: string): string {
  return stripAnsi(line).replace(/\u00a0/g, ' ').replace(/[\u2018\u2019]/g, "'");
}

/** Escape sequences a raw stream may still carry (CSI, OSC hyperlinks and titles): a screen capture has none. */
function stripAnsi(text: string): string {
  return text.includes('\x1b') ? text.replace(/\x1b\][\s\S]*?(?:\x07|\x1b\\)|\x1b\[[\x20-\x3f]*[\x40-\x7e]|\x1b[PX^_][\s\S]*?\x1b\\/g, '') : text;
}

/** Leading glyphs a TUI puts before a message: `⎿`, `■`, `✕ [`, `⚡`, `│`, bullets, spaces. */
function stripDecorations(line: string): string {
  return line.replace(/^[^\p{L}\p{N}]+/u, '');
}

/**
 * The stop line plus up to two wrapped continuation lines (a terminal wraps at its width:
 * Codex's `… try again in 5 days 22 hours 11` / `minutes.`, `… send a request to your admin`
 * / `or try again at 3:28 PM.`). A continuation starts in lower case or with a digit.
 */
function logicalLine(lines: string[], at: number): string {
  const parts = [unboxed(lines[at]!)];
  for (let i = at + 1; i < lines.length && i <= at + 2; i++) {
    const next = unboxed(lines[i]!);
    // a wrapped continuation, or the reset clause on a line of its own (`· resets 3pm (UTC)`,
    // `Resets at 3pm (UTC)`: Claude Code's TUI renders, claude-auto-retry test/patterns.test.js)
    // (Gemini CLI's dialog: `Usage limit reached for all Pro models.` / `Access resets at 8:26 PM UTC.`)
    if (!/^[a-z0-9]/.test(next) && !/^(?:[·•∙-]\s*)?(?:(?:access )?resets?|try again|retry after|wait)\b/i.test(next)) break;
    parts.push(next);
  }
  return parts.join(' ');
}

/** A line without the box it is drawn in: `│ · resets 3pm │` -> `· resets 3pm`. */
function unboxed(line: string): string {
  return line.trim().replace(/^[│┃|]\s*/, '').replace(/\s*[│┃|]$/, '').trim();
}

/** Where a reset clause starts; `resets_at` / `resets_in_seconds` are Codex's JSON fields. */
const RESET_KEYWORD = /\b(?:resets?|try again|retry after|available again|wait)\b|\bresets_(?:at|in_seconds)\b/i;
const EPOCH_BAR = /\|\s*\d{10,13}(?!\d)/;

/**
 * The part of a message that says when the limit lifts, from its keyword to the end;
 * undefined when it carries no digit ("Try again later") since nothing could be parsed.
 */
export function resetClause(text: string): string | undefined {
  const t = normalise(text);
  const k = RESET_KEYWORD.exec(t);
  const clause = k ? t.slice(k.index).trim() : EPOCH_BAR.exec(t)?.[0];
  return clause !== undefined && /\d/.test(clause) ? clause : undefined;
}

/**
 * A Claude Code transcript line that is a quota stop (CLAUDE-CODE.md): an assistant entry with
 * `isApiErrorMessage: true` and `apiErrorStatus: 429`. Older versions wrote the plain
 * `Claude AI usage limit reached|<epoch>` as a synthetic assistant message (model
 * `<synthetic>`), accepted too when its text is a stop.
 */
export function quotaFromTranscriptEntry(entry: unknown): QuotaMatch | undefined {
  if (!isRecord(entry) || entry['type'] !== 'assistant') return undefined;
  const message = isRecord(entry['message']) ? entry['message'] : {};
  const text = contentText(message['content']);
  const apiQuota = entry['isApiErrorMessage'] === true && entry['apiErrorStatus'] === 429;
  const found = findQuotaMessage(text);
  if (apiQuota) {
    const line = found?.line ?? firstLine(text) ?? 'API Error: 429';
    // 2.1.332 writes the limit itself: `apiError: "usage_limit_reached"`, `apiErrorParams.rate_limit_info.resetsAt` (epoch s)
    const info = isRecord(entry['apiErrorParams']) && isRecord(entry['apiErrorParams']['rate_limit_info']) ? entry['apiErrorParams']['rate_limit_info'] : {};
    const resetsAt = typeof info['resetsAt'] === 'number' && Number.isFinite(info['resetsAt']) ? `|${Math.round(info['resetsAt'])}` : undefined;
    const resetText = resetsAt ?? found?.resetText ?? resetClause(text);
    const usage = entry['apiError'] === 'usage_limit_reached' || USAGE_WORDS.test(text);
    // a 429 with no reset and no usage limit named (an API key's per-minute limit): transient
    const transient = resetText === undefined && !usage;
    return { line, ...(resetText !== undefined ? { resetText } : {}), ...(transient ? { transient: true } : {}) };
  }
  return message['model'] === '<synthetic>' ? found : undefined;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The text of a message's content: a string, or the `text` blocks of an array. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((b): b is { type: 'text'; text: string } => isRecord(b) && b['type'] === 'text' && typeof b['text'] === 'string')
    .map((b) => b.text)
    .join('\n');
}

function firstLine(text: string): string | undefined {
  return text.split(/\r?\n/).map((l) => l.trim()).find((l) => l !== '');
}
