import type { Store } from '../store/index.js';
import { SUGGEST_OUTCOMES, SUGGEST_WINDOW, suggestLimits, type LimitSuggestion } from './suggest.js';

/** A module's suggested limits from its past runs (the start dialog, the API, `history`). */
export function suggestionFor(store: Store, taskDir: string, defaults: { maxIterations: number; timeoutMinutes: number }): LimitSuggestion {
  return suggestLimits(store.runs.forTaskDir(taskDir, SUGGEST_WINDOW, SUGGEST_OUTCOMES), defaults);
}
