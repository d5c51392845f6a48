import type { ApprovalRequest } from '../../policy/parse.js';
import { boxAbove, unwrap } from '../../policy/boxText.js';
import { printableLine } from '../../policy/printable.js';

/**
 * What a Gemini CLI tool confirmation on screen asks for (captured, 0.61.0): a dialog box
 * whose first line names the tool (`? Shell  <description>`, `? WriteFile  Writing to
 * notes.md`), the command in a box of its own right above `Allow execution of [Shell]?`,
 * wrapped at that box's width. The command is taken from the inner box, rows joined where
 * they wrapped, kept apart where the command had its own newlines; a box whose top is off
 * the screen, or that says it hides lines, is incomplete. Older layouts: `Command found: …`,
 * `Allow execution of: 'npm'?`. Pure.
 */

/** The dialog's own border, when it draws one around the content: `│ text │`. */
function unboxed(line: string): string {
  const m = /^\s*│ (.*?) ?│\s*$/.exec(line);
  return m ? m[1]! : line;
}

/** A box that shows only part of its text says so. */
const HIDDEN = /\b(?:lines? hidden|show more|ctrl\+o to expand)\b/i;

export function geminiRequest(raw: readonly string[], qAt: number, question: string): ApprovalRequest {
  // boxes by their columns on the screen as drawn; text searches without the dialog's border
  const lines = raw.map(unboxed);
  // `Allow execution of MCP tool "name" from server "srv"?`
  const mcp = /MCP tool "([^"]+)" from server "([^"]+)"/.exec(question);
  if (mcp) return { tool: `mcp__${mcp[2]}__${mcp[1]}`, text: printableLine(question), source: 'screen' };
  const box = boxAbove(raw, qAt);
  if (/^Allow execution/i.test(question)) {
    let command: string | undefined;
    let complete = true;
    if (box) {
      command = unwrap(box.rows, box.width).replace(/\n{2,}/g, '\n').replace(/^\n|\n$/g, '');
      complete = !box.cut && !box.rows.some((r) => HIDDEN.test(r));
    } else {
      const found = lines.slice(0, qAt).reverse().find((l) => /^\s*Command found:\s*\S/.test(l));
      const named = /execution of:? '([^']+)'/.exec(question);
      command = found ? found.replace(/^\s*Command found:\s*/, '').trim() : named?.[1];
      // a box above the question whose top is off the screen: the command is not all there
      if (!found && lines.slice(Math.max(0, qAt - 3), qAt).some((l) => /╰─+╯/.test(l))) complete = false;
    }
    if (command) return { tool: 'Bash', command, text: printableLine(`Bash: ${command} — ${question}`), source: 'screen', ...(complete ? {} : { complete: false }) };
  }
  if (/Apply this change/i.test(question)) {
    // `? WriteFile  Writing to notes.md`, `? Edit  notes.md: old => new`
    const head = box && !box.cut ? lines.slice(Math.max(0, box.top - 3), box.top).reverse().find((l) => /^\s*\?\s+\S/.test(l)) : undefined;
    const m = head ? /^\s*\?\s+(\w+)\s+(?:Writing to )?([^\s:]+)/.exec(head) : undefined;
    const tool = m && /write/i.test(m[1]!) ? 'Write' : 'Edit';
    if (m) return { tool, path: m[2], text: printableLine(`${tool}: ${m[2]} — ${question}`), source: 'screen' };
    return { tool: 'Edit', text: printableLine(question), source: 'screen', complete: false };
  }
  // a web fetch shows its URL(s) above the question
  const url = lines.slice(Math.max(0, qAt - 6), qAt).join('\n').match(/https?:\/\/[^\s'"]+/);
  if (url) return { tool: 'WebFetch', url: url[0], text: printableLine(`WebFetch: ${url[0]} — ${question}`), source: 'screen' };
  return { tool: 'unknown', text: printableLine(question), source: 'screen' };
}
