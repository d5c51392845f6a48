import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { classifyScreen, answerKeys } from '../../src/agents/classify.js';
import { PROFILES } from '../../src/agents/profiles.js';
import { PtySession } from '../../src/sessions/pty.js';

const FIXTURES = fileURLToPath(new URL('../../../test/fixtures/screens/claude/2.1.197/', import.meta.url));

export interface BeatCost {
  screen: string;
  microseconds: number[];
}

/**
 * The heartbeat's work for one session: capture the emulator's screen, hash
 * the profile's region, classify it. A real PTY shows a captured Claude Code screen.
 */
export async function heartbeatCost(fixture: string, beats: number): Promise<BeatCost> {
  const text = readFileSync(`${FIXTURES}${fixture}`, 'utf8').replace(/\n$/, '');
  const session = new PtySession({
    name: 'bench', cwd: process.cwd(), env: { ...process.env } as Record<string, string>,
    argv: [process.execPath, '-e', `process.stdout.write(${JSON.stringify(text.replace(/\n/g, '\r\n'))}); setInterval(() => {}, 1e6)`],
  });
  try {
    const deadline = Date.now() + 10_000;
    while (!session.screen().some((l) => l.trim() !== '') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const profile = PROFILES.claude;
    const times: number[] = [];
    for (let i = 0; i < beats; i++) {
      const t0 = performance.now();
      const lines = session.screen();
      createHash('sha1').update(profile.hashedLines(lines).join('\n')).digest('hex');
      const c = classifyScreen(profile, lines);
      answerKeys(profile, c, lines);
      times.push((performance.now() - t0) * 1000);
    }
    return { screen: fixture, microseconds: times };
  } finally {
    session.dispose();
  }
}
