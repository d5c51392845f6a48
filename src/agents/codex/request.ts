import type { ApprovalRequest } from '../../policy/parse.js';
import { printableLine } from '../../policy/printable.js';

/**
 * What a Codex approval prompt on screen asks for (captured, 0.171.0): under the question,
 * `Reason: …` and `$ <command>`, the command wrapped at the screen's width onto the lines
 * below it (indented as the others), up to the blank line before the menu. A command cut
 * short (`…`), or one whose end is not on the screen, is incomplete: the rollout's own copy
 * (codex/rollout.ts) is the whole one. Pure.
 */

const COMMAND = /^\s*(?:▌\s*)?\$ (\S.*)$/;
/** Where the command block ends: a blank line, the menu, its footer. */
const END = /^\s*$|^\s*(?:[›>▌]\s*)?\d+\.\s|Press enter to confirm/i;

export function codexRequest(lines: readonly string[], qAt: number, question: string): ApprovalRequest {
  const cmdAt = lines.findIndex((l, i) => i > qAt && COMMAND.test(l));
  if (cmdAt >= 0) {
    const parts = [COMMAND.exec(lines[cmdAt]!)![1]!.trim()];
    let ended = false;
    for (let i = cmdAt + 1; i < lines.length; i++) {
      if (END.test(lines[i]!)) {
        ended = true;
        break;
      }
      parts.push(lines[i]!.trim());
    }
    const command = parts.join(' ');
    const complete = ended && !command.endsWith('…');
    return { tool: 'Bash', command, text: printableLine(`Bash: ${command} — ${question}`), source: 'screen', ...(complete ? {} : { complete: false }) };
  }
  // an edit without its files on the screen: nothing a path rule can judge
  if (/edit|change|patch/i.test(question)) return { tool: 'Edit', text: printableLine(question), source: 'screen', complete: false };
  return { tool: 'unknown', text: printableLine(question), source: 'screen' };
}
