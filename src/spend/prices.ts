import { totalTokens, type TokenCounts } from './usage.js';

/**
 * USD per million tokens. A cache write costs 1.25 × input (5-minute) or 2 × input (1-hour)
 * and a cache read 0.1 × input unless given. From Anthropic's published price list
 * (claude.com/pricing, as of 2026-11), OpenAI's (openai.com/api/pricing) and Google's
 * (ai.google.dev/gemini-api/docs/pricing, the rate for prompts up to 200k tokens) as of
 * 2025-11; the `prices` setting overrides or adds models.
 */
export interface ModelPrice {
  input: number;
  output: number;
  cacheWrite?: number;
  cacheWrite1h?: number;
  cacheRead?: number;
}

export const PRICES: Readonly<Record<string, ModelPrice>> = {
  'claude-opus-4-5': { input: 5, output: 25 },
  'claude-opus-4-1': { input: 15, output: 75 },
  'claude-opus-4': { input: 15, output: 75 },
  'claude-sonnet-4-5': { input: 3, output: 15 },
  'claude-sonnet-4': { input: 3, output: 15 },
  'claude-3-7-sonnet': { input: 3, output: 15 },
  'claude-haiku-4-5': { input: 1, output: 5 },
  'claude-3-5-haiku': { input: 0.8, output: 4 },
  'claude-3-haiku': { input: 0.25, output: 1.25 },
  'claude-3-opus': { input: 15, output: 75 },
  'gpt-5': { input: 1.25, output: 10 },
  'gpt-5-codex': { input: 1.25, output: 10 },
  'gpt-5.1': { input: 1.25, output: 10 },
  'gpt-5.1-codex': { input: 1.25, output: 10 },
  'gpt-5-mini': { input: 0.25, output: 2 },
  'gemini-2.5-pro': { input: 1.25, output: 10, cacheRead: 0.3125 },
  'gemini-2.5-flash': { input: 0.3, output: 2.5, cacheRead: 0.075 },
};

/**
 * The price of a model id: exact, or without its date suffix (`claude-sonnet-4-5-20250929`
 * → `claude-sonnet-4-5`). Never by a shorter prefix: `claude-opus-4-8` is not
 * `claude-opus-4`, and an unknown model has no price rather than a guessed one.
 */
export function priceOf(model: string, table: Readonly<Record<string, ModelPrice>> = PRICES): ModelPrice | undefined {
  const key = model.trim().toLowerCase();
  if (key === '') return undefined;
  return table[key] ?? table[key.replace(/-\d{8}$/, '')];
}

/** USD for these tokens at this price. */
export function costOf(t: TokenCounts, p: ModelPrice): number {
  const write5m = t.cacheWrite - t.cacheWrite1h;
  const usd = t.input * p.input + t.output * p.output
    + write5m * (p.cacheWrite ?? p.input * 1.25) + t.cacheWrite1h * (p.cacheWrite1h ?? p.input * 2)
    + t.cacheRead * (p.cacheRead ?? p.input * 0.1);
  return usd / 1_000_000;
}

export interface Spend {
  tokens: number;
  /** USD; undefined when a model used had no price (the tokens still count). */
  costUsd: number | undefined;
  /** Models without a price, for saying why there is no cost. */
  unpriced: string[];
}

/** Tokens and cost over tokens per model. */
export function spendOf(byModel: ReadonlyMap<string, TokenCounts>, table: Readonly<Record<string, ModelPrice>> = PRICES): Spend {
  let tokens = 0;
  let cost = 0;
  const unpriced: string[] = [];
  for (const [model, t] of byModel) {
    tokens += totalTokens(t);
    const price = priceOf(model, table);
    if (price) cost += costOf(t, price);
    else if (totalTokens(t) > 0) unpriced.push(model || '(no model)');
  }
  return { tokens, costUsd: unpriced.length > 0 ? undefined : cost, unpriced };
}

/** The built-in table with a user's `prices` laid over it (keys lower-cased). */
export function mergePrices(overrides: Readonly<Record<string, ModelPrice>> | undefined): Record<string, ModelPrice> {
  const out: Record<string, ModelPrice> = { ...PRICES };
  for (const [k, v] of Object.entries(overrides ?? {})) out[k.trim().toLowerCase()] = v;
  return out;
}

/**
 * The `prices` key of a settings file: `{"model-id": {"input": 3, "output": 15, ...}}` in
 * USD per million tokens. An error is one line; the bad value is not used.
 */
export function parsePrices(raw: unknown): { value: Record<string, ModelPrice> } | { error: string } {
  if (raw === undefined) return { value: {} };
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { error: 'is not an object of model ids to prices' };
  const out: Record<string, ModelPrice> = {};
  for (const [model, p] of Object.entries(raw as Record<string, unknown>)) {
    const shown = JSON.stringify(model.slice(0, 60));
    if (!p || typeof p !== 'object' || Array.isArray(p)) return { error: `${shown}: is not {input, output, cacheWrite?, cacheWrite1h?, cacheRead?}` };
    const price: Record<string, number> = {};
    for (const [k, v] of Object.entries(p as Record<string, unknown>)) {
      if (!['input', 'output', 'cacheWrite', 'cacheWrite1h', 'cacheRead'].includes(k)) return { error: `${shown}: unknown field ${JSON.stringify(k.slice(0, 30))}` };
      if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) return { error: `${shown}: ${k} must be a number of USD per million tokens, 0 or more` };
      price[k] = v;
    }
    if (price.input === undefined || price.output === undefined) return { error: `${shown}: input and output are required` };
    out[model.trim().toLowerCase()] = price as unknown as ModelPrice;
  }
  return { value: out };
}
