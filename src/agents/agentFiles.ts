import type { AgentProfile } from '../config/schema.js';
import type { AgentFiles } from './agentRecord.js';
import { CodexFiles, codexHome } from './codex/rollout.js';
import { GeminiFiles, geminiHome } from './gemini/session.js';

/**
 * The files an agent keeps about itself, for the profiles whose program writes them
 * (Codex's rollout, Gemini CLI's session file); undefined for the others. Claude Code's
 * transcript and hooks are read elsewhere (transcript.ts, src/hooks/).
 */
export function agentFilesFor(profile: AgentProfile, ctx: { env: Readonly<Record<string, string | undefined>>; home: string; cwd: string; sinceMs: number }): AgentFiles | undefined {
  if (profile === 'codex') return new CodexFiles({ codexHome: codexHome(ctx.env, ctx.home), cwd: ctx.cwd, sinceMs: ctx.sinceMs });
  if (profile === 'gemini') return new GeminiFiles({ geminiHome: geminiHome(ctx.env, ctx.home), cwd: ctx.cwd, sinceMs: ctx.sinceMs });
  return undefined;
}
