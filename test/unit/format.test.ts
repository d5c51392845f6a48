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
  it('describes the hung-agent steps and an unknown command', () => {
    const at = '2026-11-22T05:00:00Z';
    const line = (kind: 'stall' | 'recovery', detail: Record<string, unknown>) => formatEvent({ at, session: 's', taskDir: '/t/m', kind, detail }, 'm');
    expect(line('recovery', { kind: 'hung', sign: 'transcript', source: 'transcript', rung: 'restart', keys: 'restart', resume: 'ce2def90' }))
      .toMatch(/hung agent \(transcript, decided by transcript\): restart with --resume ce2def90$/);
    expect(line('stall', { kind: 'hung', sign: 'api-error', detail: 'API Error: 529', rung: 'interrupt' })).toMatch(/seems hung \(api-error: API Error: 529\); step: interrupt$/);
    expect(line('stall', { kind: 'unknown_command', command: '/x' })).toMatch(/the agent does not know the command \/x$/);
  });
});
