import { createContext, useContext } from 'react';
import type { Tone } from '../src/deck/cells.js';

/** Semantic colours. Without colour every token is undefined and meaning stays in glyphs and words. */
export interface Theme {
  tone: Record<Tone, string | undefined>;
  accent: string | undefined;
  dim: boolean;
  error: string | undefined;
}

const COLOR: Theme = {
  tone: { active: 'cyan', ok: 'green', warn: 'yellow', bad: 'red', muted: 'gray' },
  accent: 'cyan',
  dim: true,
  error: 'red',
};

const MONO: Theme = {
  tone: { active: undefined, ok: undefined, warn: undefined, bad: undefined, muted: undefined },
  accent: undefined,
  dim: false,
  error: undefined,
};

/** NO_COLOR (any non-empty value, no-color.org) and FORCE_COLOR=0 turn colour off; chalk ignores the first. */
export function colorWanted(env: NodeJS.ProcessEnv): boolean {
  if (env.NO_COLOR) return false;
  if (env.FORCE_COLOR === '0') return false;
  return true;
}

export function themeFor(color: boolean): Theme {
  return color ? COLOR : MONO;
}

export const ThemeContext = createContext<Theme>(COLOR);

export function useTheme(): Theme {
  return useContext(ThemeContext);
}
