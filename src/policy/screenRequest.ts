import type { AgentProfile } from '../config/schema.js';
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

/** Printable, one line, bounded: the text an event and the dashboard show. */
export function printableLine(text: string, max = 200): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\x1b\[[0-9;?]*[ -/]*[@-~]/g, '').replace(/[\x00-\x1f\x7f-\x9f]/g, ' ').replace(/\s+/g, ' ').trim().slice(0, max);
}

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

function codexRequest(lines: readonly string[], qAt: number, question: string): ApprovalRequest {
  const cmdAt = lines.findIndex((l, i) => i > qAt && /^\s*(?:▌\s*)?\$ \S/.test(l));
  if (cmdAt >= 0) {
    const parts = [lines[cmdAt]!.replace(/^\s*(?:▌\s*)?\$ /, '')];
    for (let i = cmdAt + 1; i < lines.length && /^\s{4,}\S/.test(lines[i]!) && !/^\s*[›>▌]?\s*\d+\./.test(lines[i]!); i++) parts.push(lines[i]!);
    const command = joinWrapped(parts);
    return { tool: 'Bash', command, text: printableLine(`Bash: ${command} — ${question}`), source: 'screen' };
  }
  if (/edit|change|patch/i.test(question)) return { tool: 'Edit', text: printableLine(question), source: 'screen' };
  return { tool: 'unknown', text: printableLine(question), source: 'screen' };
}

function geminiRequest(lines: readonly string[], qAt: number, question: string): ApprovalRequest {
  // `Allow execution of MCP tool "name" from server "srv"?`
  const mcp = /MCP tool "([^"]+)" from server "([^"]+)"/.exec(question);
  if (mcp) return { tool: `mcp__${mcp[2]}__${mcp[1]}`, text: printableLine(question), source: 'screen' };
  if (/^Allow execution/i.test(question)) {
    // the box right above the question holds the command(s), one per line
    const bottom = lastIndex(lines, (l) => /^\s*╰/.test(l), qAt);
    const top = bottom >= 0 ? lastIndex(lines, (l) => /^\s*╭/.test(l), bottom) : -1;
    let command: string | undefined;
    if (top >= 0 && qAt - bottom <= 2) {
      command = lines.slice(top + 1, bottom).map((l) => l.replace(/^\s*│ ?/, '').replace(/\s*│\s*$/, '')).filter((l) => l.trim() !== '').join('\n');
    } else {
      const found = lines.slice(0, qAt).reverse().find((l) => /^\s*Command found:\s*\S/.test(l));
      const named = /execution of:? '([^']+)'/.exec(question);
      command = found ? found.replace(/^\s*Command found:\s*/, '').trim() : named?.[1];
    }
    if (command) return { tool: 'Bash', command, text: printableLine(`Bash: ${command} — ${question}`), source: 'screen' };
  }
  if (/Apply this change/i.test(question)) return { tool: 'Edit', text: printableLine(question), source: 'screen' };
  // a web fetch shows its URL(s) above the question
  const url = lines.slice(Math.max(0, qAt - 6), qAt).join('\n').match(/https?:\/\/[^\s'"]+/);
  if (url) return { tool: 'WebFetch', url: url[0], text: printableLine(`WebFetch: ${url[0]} — ${question}`), source: 'screen' };
  return { tool: 'unknown', text: printableLine(question), source: 'screen' };
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
  if (agent === 'codex') return codexRequest(lines, qAt, question);
  if (agent === 'gemini') return geminiRequest(lines, qAt, question);
  if (agent === 'claude') return claudeRequest(lines, qAt, question) ?? { tool: 'unknown', text: question, source: 'screen' };
  return { tool: 'unknown', text: question, source: 'screen' };
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
