import type { AgentProfile } from '../config/schema.js';
import { codexRequest } from '../agents/codex/request.js';
import { geminiRequest } from '../agents/gemini/request.js';
import type { ApprovalRequest } from './rules.js';

/**
 * What a permission prompt on an agent's screen asks for, read by the
 * shape every such dialog has: a heading naming the tool, the command or path under it, a
 * question, a menu. Claude Code 2.1.x (captured): ` Bash command` / ` Create file` /
 * ` Edit file` over an indented block whose last line is the description, then
 * ` Do you want to proceed?`; the `● Tool(arg)` line above the dialog. Codex:
 * `Would you like to run the following command?` … `$ cmd`. Gemini CLI: a box with the
 * command(s) over `Allow execution of [Shell]?`, or `Allow execution of: 'npm'?`.
 * Anything else that is a prompt reads as tool `unknown` with its question. Pure.
 */

import { printableLine } from './printable.js';

export { printableLine };

const QUESTION = /^\s*(?:[│▌]\s*)?((?:Do you want|Would you like) to [^\n]*\?|Allow execution[^\n]*\?|Apply this change\?|Apply changes\?|Allow command\?|Approve this (?:command|change)\?)\s*(?:│\s*)?$/im;
/** Claude Code's dialog headings and the tool each stands for. */
const CLAUDE_HEADINGS: [RegExp, string][] = [
  [/^ Bash command$/, 'Bash'],
  [/^ Create file$/, 'Write'],
  [/^ (?:Edit|Update) file$/, 'Edit'],
  [/^ Read file$/, 'Read'],
  [/^ (?:Fetch|Web fetch)$/i, 'WebFetch'],
];
/** `● Write(/abs/path)` with its continuation lines (indented six). */
const TOOL_LINE = /^[●⏺] ([A-Za-z][\w-]*)\((.*)$/;

function lastIndex(lines: readonly string[], test: (l: string) => boolean, before = lines.length): number {
  for (let i = Math.min(before, lines.length) - 1; i >= 0; i--) if (test(lines[i]!)) return i;
  return -1;
}

function joinWrapped(parts: readonly string[]): string {
  return parts.map((p) => p.trim()).filter(Boolean).join(' ');
}

/** The `● Tool(arg)` call above the dialog: its tool and argument, wrapped lines joined. */
function toolCall(lines: readonly string[], before: number): { tool: string; arg: string } | undefined {
  const at = lastIndex(lines, (l) => TOOL_LINE.test(l), before);
  if (at < 0) return undefined;
  const m = TOOL_LINE.exec(lines[at]!)!;
  const parts = [m[2]!];
  for (let i = at + 1; i < before && /^ {6}\S/.test(lines[i]!); i++) parts.push(lines[i]!);
  const joined = joinWrapped(parts);
  if (!joined.endsWith(')')) return undefined; // cut short (`…`): not the whole argument
  // Claude Code names an Edit call `Update(path)` on screen (captured)
  return { tool: m[1] === 'Update' ? 'Edit' : m[1]!, arg: joined.slice(0, -1) };
}

const DASHED = /^\s*╌{8,}\s*$/;

/** The lines between the first two `╌` rules after the heading, their `│ ` marks taken off, joined. */
function fencedBlock(lines: readonly string[], headAt: number, qAt: number): string | undefined {
  const open = lines.findIndex((l, i) => i > headAt && i < qAt && DASHED.test(l));
  if (open < 0) return undefined;
  const close = lines.findIndex((l, i) => i > open && i < qAt && DASHED.test(l));
  if (close < 0) return undefined;
  const text = joinWrapped(lines.slice(open + 1, close).map((l) => l.replace(/^\s*│ ?/, '')));
  return text === '' ? undefined : text;
}

function claudeRequest(lines: readonly string[], qAt: number, question: string): ApprovalRequest | undefined {
  const headAt = lastIndex(lines, (l) => CLAUDE_HEADINGS.some(([re]) => re.test(l)), qAt);
  const call = toolCall(lines, headAt >= 0 ? headAt : qAt);
  if (headAt < 0) {
    if (!call) return undefined;
    return { tool: call.tool, ...(call.tool.startsWith('mcp__') ? {} : { command: call.arg }), text: printableLine(`${call.tool}(${call.arg}) ${question}`), source: 'screen' };
  }
  const tool = CLAUDE_HEADINGS.find(([re]) => re.test(lines[headAt]!))![1];
  // the block under the heading: indented lines up to the first blank one
  const block: string[] = [];
  let i = headAt + 1;
  while (i < qAt && lines[i]!.trim() === '') i++;
  for (; i < qAt && lines[i]!.trim() !== ''; i++) block.push(lines[i]!);
  if (tool === 'Bash') {
    // 2.1.332: the command between two `╌` rules (wrapped lines marked `│ `), the description and a tip above
    const fenced = fencedBlock(lines, headAt, qAt);
    // 2.1.197: the last line is the description (Claude Code prints `Run shell command` when there is none)
    const command = fenced ?? joinWrapped(block.length > 1 ? block.slice(0, -1) : block);
    return { tool, command, text: printableLine(`Bash: ${command} — ${question}`), source: 'screen' };
  }
  // file tools: the `● Write(/abs/path)` line names the path absolutely; the dialog relative to the cwd
  const path = call && call.tool === tool ? call.arg : (block[0] ?? '').trim();
  return { tool, path, text: printableLine(`${tool}: ${path} — ${question}`), source: 'screen' };
}

/** The request of the permission prompt on screen; undefined when no question can be found. */
export function screenRequest(agent: AgentProfile, raw: readonly string[]): ApprovalRequest | undefined {
  const lines = raw.map((l) => l.replace(/\s+$/, ''));
  const qAt = lastIndex(lines, (l) => QUESTION.test(l));
  if (qAt < 0) {
    // a prompt without one of the known questions (`Waiting for user confirmation`, a bare menu)
    const cursor = lastIndex(lines, (l) => /^\s*(?:│\s*)?[❯›>●]\s*1\./.test(l));
    const q = cursor > 0 ? lastIndex(lines, (l) => l.trim() !== '' && !/^\s*(?:│\s*)?\d+\./.test(l), cursor) : -1;
    return q >= 0 ? { tool: 'unknown', text: printableLine(lines[q]!), source: 'screen' } : undefined;
  }
  const question = printableLine(QUESTION.exec(lines[qAt]!)![1]!);
  return whole(requestOf(agent, lines, qAt, question));
}

function requestOf(agent: AgentProfile, lines: readonly string[], qAt: number, question: string): ApprovalRequest {
  if (agent === 'codex') return codexRequest(lines, qAt, question);
  if (agent === 'gemini') return geminiRequest(lines, qAt, question);
  if (agent === 'claude') return claudeRequest(lines, qAt, question) ?? { tool: 'unknown', text: question, source: 'screen' };
  return { tool: 'unknown', text: question, source: 'screen' };
}

/** A command or path the screen cut short (`…`) is no whole request, whatever drew it. */
function whole(req: ApprovalRequest): ApprovalRequest {
  const subject = req.command ?? req.path ?? req.url;
  return subject !== undefined && subject.includes('…') ? { ...req, complete: false } : req;
}

/** Claude Code's PermissionRequest hook payload (`tool_name`, `tool_input`) as a request. */
export function hookRequest(detail: Record<string, unknown>): ApprovalRequest | undefined {
  const tool = typeof detail.tool_name === 'string' ? detail.tool_name : undefined;
  if (!tool) return undefined;
  const input = (typeof detail.tool_input === 'object' && detail.tool_input !== null ? detail.tool_input : {}) as Record<string, unknown>;
  const str = (k: string): string | undefined => (typeof input[k] === 'string' ? (input[k] as string) : undefined);
  const command = str('command');
  const path = str('file_path') ?? str('notebook_path') ?? str('path');
  const url = str('url');
  const shown = command ?? path ?? url ?? '';
  return { tool, command, path, url, text: printableLine(`${tool}: ${shown}`), source: 'hook' };
}
