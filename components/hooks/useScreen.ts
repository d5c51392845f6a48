import { useSyncExternalStore } from 'react';
import type { ScreenSource } from '../../src/deck/screenFeed.js';

const NONE: readonly string[] = [];
const noSubscribe = (): (() => void) => () => {};

/** An agent's screen as lines of text, already throttled by its ScreenFeed. */
export function useScreen(source: ScreenSource | undefined): readonly string[] {
  return useSyncExternalStore(source?.subscribe ?? noSubscribe, source?.getSnapshot ?? (() => NONE));
}
