import type { Db } from '../store/db.js';

/**
 * The requests autodeck's PermissionRequest hook holds open for a Claude Code session
 * (a tool's permission, or an AskUserQuestion question), and their answers. The hook
 * inserts the row and waits; a rule, or a person through the dashboard or the API, writes
 * the answer; the hook hands it to Claude Code and closes the row. A row is open while
 * `closed_at` is NULL and its hook process lives.
 */

export type RequestKind = 'permission' | 'question';

/** What autodeck keeps of the request: never file contents. */
export interface RequestDetail {
  tool: string;
  command?: string;
  file_path?: string;
  url?: string;
  description?: string;
  /** AskUserQuestion's questions, as Claude Code sent them (the answer must name them). */
  questions?: unknown[];
}

/** The decision handed to Claude Code (the hook's `decision` object). */
export interface RequestAnswer {
  behavior: 'allow' | 'deny';
  message?: string;
  /** For a question: the tool's input with `answers` added. */
  updatedInput?: Record<string, unknown>;
}

export interface ClaudeRequestRow {
  id: number;
  sessionId: string;
  jobId: string;
  kind: RequestKind;
  tool: string;
  request: RequestDetail;
  /** One line for people. */
  text: string;
  askedAt: string;
  hookPid: number | null;
  answer: RequestAnswer | undefined;
  answeredBy: string;
  answeredAt: string | null;
  closedAt: string | null;
  closedHow: string;
}

function parse<T>(text: unknown): T | undefined {
  if (typeof text !== 'string' || text === '') return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

function fromRaw(r: Record<string, unknown>): ClaudeRequestRow {
  return {
    id: Number(r.id), sessionId: String(r.session_id), jobId: String(r.job_id ?? ''), kind: r.kind === 'question' ? 'question' : 'permission',
    tool: String(r.tool ?? ''), request: parse<RequestDetail>(r.request) ?? { tool: String(r.tool ?? '') }, text: String(r.text ?? ''),
    askedAt: String(r.asked_at), hookPid: typeof r.hook_pid === 'number' ? r.hook_pid : null, answer: parse<RequestAnswer>(r.answer),
    answeredBy: String(r.answered_by ?? ''), answeredAt: (r.answered_at as string | null) ?? null,
    closedAt: (r.closed_at as string | null) ?? null, closedHow: String(r.closed_how ?? ''),
  };
}

export interface NewRequest {
  sessionId: string;
  jobId: string;
  kind: RequestKind;
  request: RequestDetail;
  text: string;
  askedAt: string;
  hookPid: number;
}

export class ClaudeRequestStore {
  private readonly ins;
  private readonly one;
  private readonly answerStmt;
  private readonly closeStmt;
  private readonly openStmt;
  private readonly recentStmt;

  constructor(db: Db) {
    this.ins = db.prepare(`INSERT INTO claude_requests (session_id, job_id, kind, tool, request, text, asked_at, hook_pid)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
    this.one = db.prepare('SELECT * FROM claude_requests WHERE id = ?');
    // only an open, unanswered request takes an answer: the first answer wins
    this.answerStmt = db.prepare(`UPDATE claude_requests SET answer = ?, answered_by = ?, answered_at = ?
      WHERE id = ? AND answer = '' AND closed_at IS NULL`);
    this.closeStmt = db.prepare('UPDATE claude_requests SET closed_at = ?, closed_how = ? WHERE id = ? AND closed_at IS NULL');
    this.openStmt = db.prepare('SELECT * FROM claude_requests WHERE closed_at IS NULL ORDER BY id');
    this.recentStmt = db.prepare('SELECT * FROM claude_requests WHERE session_id = ? ORDER BY id DESC LIMIT ?');
  }

  insert(r: NewRequest): number {
    return Number(this.ins.run(r.sessionId, r.jobId, r.kind, r.request.tool, JSON.stringify(r.request), r.text, r.askedAt, r.hookPid).lastInsertRowid);
  }

  get(id: number): ClaudeRequestRow | undefined {
    const r = this.one.get(id) as Record<string, unknown> | undefined;
    return r ? fromRaw(r) : undefined;
  }

  /** True when this answer was taken (the request was open and had none yet). */
  answer(id: number, answer: RequestAnswer, by: string, at: string): boolean {
    return this.answerStmt.run(JSON.stringify(answer), by.slice(0, 300), at, id).changes === 1;
  }

  close(id: number, how: string, at: string): void {
    this.closeStmt.run(at, how, id);
  }

  /** Every request still open (its hook may have died: callers check `hookPid`). */
  open(): ClaudeRequestRow[] {
    return (this.openStmt.all() as Record<string, unknown>[]).map(fromRaw);
  }

  recent(sessionId: string, limit = 20): ClaudeRequestRow[] {
    return (this.recentStmt.all(sessionId, limit) as Record<string, unknown>[]).map(fromRaw);
  }
}

/** One line for people: `Bash: git push`, `Write: src/x.ts`, `question: Which colour…? (Red · Blue)`. */
export function requestText(kind: RequestKind, d: RequestDetail): string {
  if (kind === 'question') {
    const qs = (d.questions ?? []).map(questionLine).filter((q) => q !== '');
    return `question: ${qs.join(' / ') || 'a question'}`;
  }
  const subject = d.command ?? d.file_path ?? d.url ?? d.description ?? '';
  return `${d.tool}${subject ? `: ${subject}` : ''}`.replace(/\s+/g, ' ').slice(0, 500);
}

function questionLine(q: unknown): string {
  if (typeof q !== 'object' || q === null) return '';
  const { question, options } = q as { question?: unknown; options?: unknown };
  const labels = Array.isArray(options)
    ? options.map((o) => (typeof o === 'object' && o !== null && typeof (o as { label?: unknown }).label === 'string' ? (o as { label: string }).label : '')).filter(Boolean)
    : [];
  const text = typeof question === 'string' ? question : '';
  return `${text}${labels.length ? ` (${labels.join(' · ')})` : ''}`.replace(/\s+/g, ' ').trim();
}

/** The questions' texts, in order: what an answer must name. */
export function questionTexts(d: RequestDetail): string[] {
  return (d.questions ?? []).map((q) => (typeof q === 'object' && q !== null && typeof (q as { question?: unknown }).question === 'string' ? (q as { question: string }).question : '')).filter(Boolean);
}

/**
 * The answer to a question request: `answers` maps each question's text to the chosen
 * label or free text; a single `text` answers every question (one question is the common
 * case). Throws one line when a question is left without an answer.
 */
export function questionAnswer(d: RequestDetail, given: { text?: string; answers?: Record<string, string> }): RequestAnswer {
  const texts = questionTexts(d);
  const answers: Record<string, string> = {};
  for (const q of texts) {
    const a = given.answers?.[q] ?? given.text;
    if (a === undefined || a.trim() === '') throw new Error(`no answer for the question "${q.slice(0, 80)}"`);
    answers[q] = a;
  }
  return { behavior: 'allow', updatedInput: { questions: d.questions ?? [], answers } };
}
