import { describe, expect, it } from 'vitest';
import { formatEvent, printable } from '../../src/format/event.js';

describe('human output', () => {
  it('shows control characters as escapes', () => {
    expect(printable('a\u001b[2Jb\u0007c\u009bd')).toBe('a\\x1b[2Jb\\x07c\\x9bd');
    expect(printable('plain ✓ text')).toBe('plain ✓ text');
  });
  it('an event line carries no escape sequence from a folder name', () => {
    const line = formatEvent({
      at: '2026-11-22T05:00:00Z', session: 's', taskDir: '/t/evil\u001b]0;pwned\u0007', kind: 'started',
      detail: { maxIterations: 20, timeoutMinutes: 30, argv: ['agent', '/t/evil\u001b]0;pwned\u0007'] },
    });
    expect(line).not.toMatch(/[\u0000-\u001f]/);
    expect(line).toContain('evil\\x1b]0;pwned\\x07');
  });
  it('describes a signal in a few words', () => {
    const line = formatEvent({ at: '2026-11-22T05:00:00Z', session: 's', taskDir: '/t/m', kind: 'signal',
      detail: { iteration: 3, step: 'check', checkpoint: 'post-exec', result: 'ACCEPT', next: 'merge' } }, 'm');
    expect(line).toMatch(/ {2}m {2}signal {2}iteration 3: check\(post-exec\) ACCEPT -> merge$/);
  });
});
