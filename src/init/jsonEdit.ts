import * as jsonc from 'jsonc-parser';

/**
 * Edits of a JSON settings file (comments and trailing commas allowed, as Claude Code's
 * settings may have them) that keep everything the person wrote: a new entry is written in
 * the style around it (a one-line list stays one line; otherwise on its own lines, at the
 * indentation of its neighbours), and nothing else moves. The reading and the removals are
 * jsonc-parser's; an insertion is built here, because its formatter re-flows whole lines
 * (a one-line list became five). Pure: text in, text out.
 */

export type JsonPath = (string | number)[];
type Node = jsonc.Node;

export interface JsonText {
  text: string;
  /** One level of indentation: the file's own, or two spaces. */
  unit: string;
  eol: string;
}

/** The parsed value, or why the text cannot be edited safely. */
export function readJsonc(text: string): { value: unknown } | { error: string } {
  const errors: jsonc.ParseError[] = [];
  const value = jsonc.parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first) {
    const line = text.slice(0, first.offset).split('\n').length;
    return { error: `is not valid JSON (${jsonc.printParseErrorCode(first.error)} at line ${line})` };
  }
  return { value };
}

export function jsonText(text: string): JsonText {
  const indent = /\n([ \t]+)\S/.exec(text)?.[1];
  // the first indented line is one level in
  return { text, unit: indent ?? '  ', eol: text.includes('\r\n') ? '\r\n' : '\n' };
}

/** `{"a": [1, 2]}`: one line, a space after each colon and comma. */
function inline(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(inline).join(', ')}]`;
  if (value !== null && typeof value === 'object') return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${inline(v)}`).join(', ')}}`;
  return JSON.stringify(value);
}

/** `value` on lines of its own, each continuation line under `indent`. */
function block(value: unknown, unit: string, indent: string, eol: string): string {
  return JSON.stringify(value, null, unit).split('\n').join(`${eol}${indent}`);
}

const lineStart = (text: string, offset: number): number => text.lastIndexOf('\n', offset - 1) + 1;
const indentAt = (text: string, offset: number): string => /^[ \t]*/.exec(text.slice(lineStart(text, offset)))![0];
const oneLine = (text: string, n: Node): boolean => !text.slice(n.offset, n.offset + n.length).includes('\n');

/** After a node: its trailing comma (if any), and the end of its line past a comment on it. */
function after(text: string, end: number): { comma: number | undefined; lineEnd: number } {
  let i = end;
  let comma: number | undefined;
  for (;;) {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t')) i++;
    if (text[i] === ',' && comma === undefined) {
      comma = i;
      i++;
      continue;
    }
    if (text.startsWith('/*', i)) {
      const close = text.indexOf('*/', i + 2);
      if (close < 0 || text.slice(i, close).includes('\n')) break;
      i = close + 2;
      continue;
    }
    if (text.startsWith('//', i)) {
      const nl = text.indexOf('\n', i);
      i = nl < 0 ? text.length : nl;
    }
    break;
  }
  const lineEnd = text[i] === '\r' || text[i] === '\n' || i === text.length ? i : end;
  return { comma, lineEnd };
}

type Edit = jsonc.Edit;

/** The edits that put `entry` (already `"key": value` or a value) last in `container`. */
function appendEdits(t: JsonText, container: Node, entry: { inline: string; block: (indent: string) => string }): Edit[] {
  const { text, eol } = t;
  const children = container.children ?? [];
  const open = container.offset + 1;
  if (children.length === 0) {
    const close = container.offset + container.length - 1;
    // an empty file's `{}` takes the entry on lines of its own; any other empty one-liner, inline
    if (oneLine(text, container) && container.parent !== undefined) return [{ offset: open, length: close - open, content: entry.inline }];
    const indent = indentAt(text, container.offset) + t.unit;
    return [{ offset: open, length: close - open, content: `${eol}${indent}${entry.block(indent)}${eol}${indentAt(text, container.offset)}` }];
  }
  const last = children.at(-1)!;
  const end = last.offset + last.length;
  const { comma, lineEnd } = after(text, end);
  if (oneLine(text, container)) {
    return comma === undefined
      ? [{ offset: end, length: 0, content: `, ${entry.inline}` }]
      : [{ offset: comma + 1, length: 0, content: ` ${entry.inline},` }];
  }
  const indent = indentAt(text, last.offset);
  const edits: Edit[] = [];
  if (comma === undefined) edits.push({ offset: end, length: 0, content: ',' });
  edits.push({ offset: lineEnd, length: 0, content: `${eol}${indent}${entry.block(indent)}${comma === undefined ? '' : ','}` });
  return edits;
}

function nodeAt(text: string, path: JsonPath): Node | undefined {
  const root = jsonc.parseTree(text, [], { allowTrailingComma: true, disallowComments: false });
  return root && (path.length === 0 ? root : jsonc.findNodeAtLocation(root, path));
}

/**
 * `value` added last to the array at `path`; a missing array (and a missing object above it)
 * is made, as a property added last to the nearest object that exists. Throws when
 * something on the path is not what it must be (the caller checked the shape first).
 */
export function appendAt(t: JsonText, path: JsonPath, value: unknown): string {
  const text = t.text.trim() === '' ? '{}' : t.text;
  // the deepest part of the path that exists
  let depth = path.length;
  while (depth > 0 && !nodeAt(text, path.slice(0, depth))) depth--;
  const container = nodeAt(text, path.slice(0, depth));
  if (!container) throw new Error('not a JSON value');
  // what is missing below it, built as one value: {"Stop": [value]} for hooks.Stop
  const missing = path.slice(depth);
  let made: unknown = depth === path.length ? value : [value];
  for (let i = missing.length - 1; i >= 1; i--) made = { [missing[i] as string]: made };
  const u = jsonText(text);
  if (depth === path.length) {
    if (container.type !== 'array') throw new Error(`${path.join('.')} is not a list`);
    return jsonc.applyEdits(text, appendEdits(u, container, { inline: inline(made), block: (indent) => block(made, u.unit, indent, u.eol) }));
  }
  if (container.type !== 'object') throw new Error(`${path.slice(0, depth).join('.') || 'the file'} is not an object`);
  const key = JSON.stringify(missing[0]);
  return jsonc.applyEdits(text, appendEdits(u, container, {
    inline: `${key}: ${inline(made)}`,
    block: (indent) => `${key}: ${block(made, u.unit, indent, u.eol)}`,
  }));
}

/** The string at `path` replaced, nothing else touched. */
export function replaceAt(text: string, path: JsonPath, value: string): string {
  return jsonc.applyEdits(text, jsonc.modify(text, path, value, {}));
}

/**
 * The value at `path` (an element, or a property with its key) removed with its comma and,
 * when it had lines of its own, those lines; a comment on its neighbour's line stays. The
 * inverse of appendAt: what appendAt added and nothing else changed since comes out byte
 * for byte as it was. (jsonc-parser's own removal cuts a one-line list's last element short,
 * and takes a comment between the value and the next with it.)
 */
export function removeAt(text: string, path: JsonPath): string {
  const node = nodeAt(text, path);
  if (!node?.parent) return text;
  const item = node.parent.type === 'property' ? node.parent : node;
  const container = item.parent!;
  const kids = container.children!;
  const i = kids.indexOf(item);
  const end = item.offset + item.length;
  if (kids.length === 1) return text.slice(0, container.offset + 1) + text.slice(container.offset + container.length - 1);
  if (i < kids.length - 1) return removeBefore(text, item, kids[i + 1]!);
  const prev = kids[i - 1]!;
  const prevEnd = prev.offset + prev.length;
  const start = lineStart(text, item.offset);
  if (!/^[ \t]*$/.test(text.slice(start, item.offset))) return text.slice(0, prevEnd) + text.slice(end);
  // on lines of its own: those lines go, with its own trailing comma, or else its neighbour's comma
  const own = after(text, end).comma;
  const cutFrom = start - (text[start - 2] === '\r' ? 2 : 1);
  const cut = text.slice(0, cutFrom) + text.slice(own === undefined ? end : own + 1);
  if (own !== undefined) return cut;
  const comma = after(text, prevEnd).comma;
  return comma === undefined ? cut : cut.slice(0, comma) + cut.slice(comma + 1);
}

/**
 * `item` removed when `next` follows it: on lines of its own, those lines (a comment at
 * their end too); else the item, its comma and the spaces after it. A comment the person
 * put between the two, on a line of its own, stays.
 */
function removeBefore(text: string, item: Node, next: Node): string {
  const end = item.offset + item.length;
  const { comma, lineEnd } = after(text, end);
  const start = lineStart(text, item.offset);
  const eol = text.startsWith('\r\n', lineEnd) ? 2 : text[lineEnd] === '\n' ? 1 : 0;
  if (/^[ \t]*$/.test(text.slice(start, item.offset)) && eol > 0 && lineEnd + eol <= next.offset) {
    return text.slice(0, start) + text.slice(lineEnd + eol);
  }
  let from = comma === undefined ? end : comma + 1;
  while (text[from] === ' ' || text[from] === '\t') from++;
  return text.slice(0, item.offset) + text.slice(Math.min(from, next.offset));
}
