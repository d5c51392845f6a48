/**
 * The Claude Code releases autodeck is tested against, and what a version outside them
 * means. The real-binary tests run on both ends of this range (test/helpers/claudeCode.ts);
 * `autodeck doctor` compares the installed `claude --version` with it. Pure.
 */

export const CLAUDE_CODE_OLDEST = '2.1.197';
export const CLAUDE_CODE_NEWEST = '2.1.332';

export type Semver = readonly [number, number, number];

/** `2.1.332 (Claude Code)` → [2, 1, 332]; undefined when no version is in the text. */
export function parseVersion(text: string): Semver | undefined {
  const m = /(\d+)\.(\d+)\.(\d+)/.exec(text);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

export function compareVersions(a: Semver, b: Semver): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

export type RangeVerdict = 'older' | 'inside' | 'newer';

export function versionVerdict(version: Semver): RangeVerdict {
  if (compareVersions(version, parseVersion(CLAUDE_CODE_OLDEST)!) < 0) return 'older';
  if (compareVersions(version, parseVersion(CLAUDE_CODE_NEWEST)!) > 0) return 'newer';
  return 'inside';
}

/** At or after `since`: whether a release has a feature that came in `since`. */
export function atLeast(version: Semver, since: string): boolean {
  return compareVersions(version, parseVersion(since)!) >= 0;
}

/**
 * Features autodeck uses that came in a given release (from Claude Code's changelog and
 * what was observed at both ends of the range). Below `since`, autodeck falls back to
 * what the `fallback` says.
 */
export interface VersionFeature {
  since: string;
  what: string;
  fallback: string;
}

export const CLAUDE_FEATURES: readonly VersionFeature[] = [
  {
    since: '2.1.198',
    what: 'Notification hook types agent_needs_input / agent_completed',
    fallback: 'the older notification types and the screen tell when the agent waits',
  },
  {
    since: '2.1.295',
    what: 'OSC 7501 status sequences (working / waiting / done)',
    fallback: 'the screen and the hooks tell the agent\'s state',
  },
];

/** One line per thing that differs for this version, empty when it is inside the tested range. */
export function outsideRangeNotes(version: Semver): string[] {
  switch (versionVerdict(version)) {
    case 'inside':
      return [];
    case 'older':
      return [
        `older than ${CLAUDE_CODE_OLDEST}, the oldest release autodeck is tested with: its screens, dialogs and hook events may not be read right`,
        'the approval policy relies on the PreToolUse hook answering deny / ask; older releases may ignore that answer',
        `update it: npm install -g @anthropic-ai/claude-code@${CLAUDE_CODE_NEWEST}`,
      ];
    case 'newer':
      return [
        `newer than ${CLAUDE_CODE_NEWEST}, the newest release autodeck is tested with: a screen or dialog it changed may read as "needs you" (never answered blindly)`,
        'the approval policy still holds (it answers through the PreToolUse hook, not the screen)',
        `if something reads wrong, pin the tested release: npm install -g @anthropic-ai/claude-code@${CLAUDE_CODE_NEWEST}`,
      ];
  }
}
