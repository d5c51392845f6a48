import { describe, expect, it } from 'vitest';
import { appendAt, jsonText, readJsonc, removeAt, replaceAt } from '../../src/init/jsonEdit.js';

const HOOK = { hooks: [{ type: 'command', command: 'autodeck hook stop' }] };
const valueOf = (text: string): unknown => {
  const r = readJsonc(text);
  if ('error' in r) throw new Error(`${r.error}\n${text}`);
  return r.value;
};

// Settings files as people write them; each gets an entry added where it belongs, and its
// removal gives the file back byte for byte.
const FILES: [string, string][] = [
  ['one line', '{"model": "opus", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}}\n'],
  ['two spaces, a comment on the last line', '{\n  "model": "opus",\n  "hooks": {\n    "Stop": [\n      {"hooks": []} // mine\n    ]\n  }\n}\n'],
  ['four spaces, a one-line list', '{\n    "hooks": {\n        "Stop": [ { "hooks": [] } ]\n    }\n}\n'],
  ['tabs', '{\n\t"hooks": {\n\t\t"Stop": [\n\t\t\t{"hooks": []}\n\t\t]\n\t}\n}\n'],
  ['CRLF', '{\r\n  "hooks": {\r\n    "Stop": [\r\n      {"hooks": []}\r\n    ]\r\n  }\r\n}\r\n'],
  ['trailing commas', '{\n  "hooks": {\n    "Stop": [\n      {"hooks": []},\n    ],\n  },\n}\n'],
  ['an empty list', '{\n  "hooks": {\n    "Stop": []\n  }\n}\n'],
];

describe('editing a settings file in place', () => {
  it.each(FILES)('%s: the entry goes last in Stop, and its removal gives the file back', (_, text) => {
    const added = appendAt(jsonText(text), ['hooks', 'Stop'], HOOK);
    const stop = (valueOf(added) as { hooks: { Stop: unknown[] } }).hooks.Stop;
    expect(stop.at(-1)).toEqual(HOOK);
    expect(valueOf(added)).toEqual({ ...(valueOf(text) as object), hooks: { Stop: [...((valueOf(text) as { hooks: { Stop: unknown[] } }).hooks.Stop), HOOK] } });
    // nothing of the file moved: it is all there, before the new entry's text and after it
    const path = stop.length === 1 ? ['hooks', 'Stop', 0] : ['hooks', 'Stop', stop.length - 1];
    const back = removeAt(added, path);
    if (stop.length > 1) expect(back).toBe(text);
    else expect(valueOf(back)).toEqual(valueOf(text));
    if (text.includes('\r\n')) expect(added.replace(/\r\n/g, '')).not.toContain('\n');
  });

  it('makes what is missing, as one block at its neighbours\' indentation; an empty file becomes a formatted one', () => {
    expect(appendAt(jsonText(''), ['hooks', 'Stop'], HOOK)).toBe(`{\n  "hooks": {\n    "Stop": [\n      {\n        "hooks": [\n          {\n            "type": "command",\n            "command": "autodeck hook stop"\n          }\n        ]\n      }\n    ]\n  }\n}`);
    const own = '{\n    // mine\n    "model": "opus" // the best\n}\n';
    const added = appendAt(jsonText(own), ['hooks', 'Stop'], HOOK);
    expect(added.startsWith('{\n    // mine\n    "model": "opus", // the best\n    "hooks": {\n        "Stop": [\n')).toBe(true);
    expect(removeAt(added, ['hooks'])).toBe(own);
  });

  it('replaces a string alone, and refuses a path through something of another shape', () => {
    const text = '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "old"}]}]}}';
    expect(replaceAt(text, ['hooks', 'Stop', 0, 'hooks', 0, 'command'], 'new')).toBe(text.replace('"old"', '"new"'));
    expect(() => appendAt(jsonText('{"hooks": []}'), ['hooks', 'Stop'], HOOK)).toThrow(/not an object/);
    expect(() => appendAt(jsonText('{"hooks": {"Stop": 3}}'), ['hooks', 'Stop'], HOOK)).toThrow(/not a list/);
  });

  it('reads comments and trailing commas, and says where a file is broken', () => {
    expect(valueOf('{ // c\n "a": [1,], /* d */ }')).toEqual({ a: [1] });
    expect(readJsonc('{\n  "a": 1\n  "b": 2\n}')).toEqual({ error: 'is not valid JSON (CommaExpected at line 3)' });
  });
});

describe('taking an entry back when the person added more after it', () => {
  it('keeps their comment and their entry, in a block and in a one-line list', () => {
    const ours = '{\n  "hooks": {\n    "Stop": [\n      {"hooks": []}\n    ]\n  }\n}\n';
    const added = appendAt(jsonText(ours), ['hooks', 'Notification'], HOOK);
    // then the person adds a comment and a hook of their own after ours
    const theirs = added.replace(/\n  }\n}\n$/, ',\n    // mine, after init\n    "PostToolUse": []\n  }\n}\n');
    expect(removeAt(theirs, ['hooks', 'Notification'])).toBe('{\n  "hooks": {\n    "Stop": [\n      {"hooks": []}\n    ],\n    // mine, after init\n    "PostToolUse": []\n  }\n}\n');
    expect(removeAt('{"a": [1, /* two */ 2, 3]}', ['a', 0])).toBe('{"a": [/* two */ 2, 3]}');
    expect(removeAt('{"a": [1, 2, 3]}', ['a', 1])).toBe('{"a": [1, 3]}');
    expect(removeAt('{\r\n  "x": 1, // ours\r\n  // theirs\r\n  "y": 2\r\n}', ['x'])).toBe('{\r\n  // theirs\r\n  "y": 2\r\n}');
  });
});
