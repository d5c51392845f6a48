import { contextPercent } from './context.js';

/** Tokens as people read them: 950, 24.8k, 1.3M. */
export function tokensText(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 100_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** The dashboard's tokens/$ cell: `12.3k $0.41`, `12.3k` for a model without a price, `–` without a transcript. */
export function spendCellText(tokens: number | null | undefined, costUsd: number | null | undefined): string {
  if (tokens === null || tokens === undefined) return '–';
  return costUsd === null || costUsd === undefined ? tokensText(tokens) : `${tokensText(tokens)} $${costUsd.toFixed(2)}`;
}

/** The dashboard's ctx % cell: `42%`; `–` when unknown (no transcript yet, or a model without a window). */
export function ctxCellText(contextTokens: number | null | undefined, contextWindow: number | null | undefined): string {
  const p = contextPercent(contextTokens, contextWindow);
  return p === undefined ? '–' : `${p}%`;
}
