import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { classifyScreen } from '../../src/agents/classify.js';
import { PROFILES, type ScreenKind } from '../../src/agents/profiles.js';
import type { AgentProfile } from '../../src/config/schema.js';

/**
 * The fixture corpus of agent screens (test/fixtures/screens/<agent>/<version>/): every
 * folder's manifest.json names each file's expected kind and its source. Shared by the
 * table test (test/unit/classify.test.ts) and `npm run corpus`.
 */
export interface CorpusEntry {
  agent: AgentProfile;
  version: string;
  file: string;
  path: string;
  /** The expected kind; `exited` means "not a prompt to answer" (an exit is a session event). */
  expected: ScreenKind | 'exited';
  source: string;
  /** For copied test inputs: the source project's own expectation, in its words (see the folder's README). */
  theirs?: string | undefined;
}

export function loadCorpus(root: string): CorpusEntry[] {
  if (!existsSync(root)) return [];
  const out: CorpusEntry[] = [];
  for (const agent of readdirSync(root).sort()) {
    if (!(agent in PROFILES)) continue;
    for (const version of readdirSync(join(root, agent)).sort()) {
      const manifest = join(root, agent, version, 'manifest.json');
      if (!existsSync(manifest)) continue;
      const { fixtures } = JSON.parse(readFileSync(manifest, 'utf8')) as { fixtures: { file: string; classification: CorpusEntry['expected']; source: string; theirs?: string }[] };
      for (const f of fixtures) {
        out.push({ agent: agent as AgentProfile, version, file: f.file, path: join(root, agent, version, f.file), expected: f.classification, source: f.source, theirs: f.theirs });
      }
    }
  }
  return out;
}

export function screenLines(path: string): string[] {
  return readFileSync(path, 'utf8').replace(/\n$/, '').split('\n');
}

const ANSWERED: readonly string[] = ['permission_prompt', 'question', 'yes_no_prompt', 'continue_prompt', 'quota'];

/** Our kind for the entry, and whether it agrees with the expectation. */
export function judge(e: CorpusEntry): { kind: ScreenKind; agrees: boolean } {
  const kind = classifyScreen(PROFILES[e.agent], screenLines(e.path)).kind;
  // An exit is an event of the session, never read from a screen: such a screen must only not be "answered".
  const agrees = e.expected === 'exited' ? !ANSWERED.includes(kind) : kind === e.expected;
  return { kind, agrees };
}

/** The category a kind is reported under. */
export function category(kind: string): string {
  return ['permission_prompt', 'question', 'yes_no_prompt', 'continue_prompt'].includes(kind) ? 'prompt' : kind;
}

const PROMPT_KINDS: readonly string[] = ['permission_prompt', 'question', 'yes_no_prompt', 'continue_prompt'];

/**
 * Whether a kind agrees with the source project's own expectation, by the mappings of the
 * fixture folders' READMEs; undefined when the fixture has none (captures, snapshots).
 */
export function agreesWithSource(theirs: string | undefined, kind: string): boolean | undefined {
  switch (theirs) {
    case undefined: return undefined;
    case 'busy': return kind === 'busy';
    case 'not-busy': return kind !== 'busy';
    case 'idle': return kind === 'idle' || kind === 'unknown';
    case 'waiting_input': return PROMPT_KINDS.includes(kind);
    case 'waiting': return PROMPT_KINDS.includes(kind) || kind === 'idle';
    case 'not-waiting': return !PROMPT_KINDS.includes(kind) && kind !== 'idle';
    case 'not-prompt': return !PROMPT_KINDS.includes(kind);
    default: return kind === theirs;
  }
}
