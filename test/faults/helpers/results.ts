import { appendFileSync } from 'node:fs';

/** One row of the table `npm run faults` prints (docs/faults.md). */
export interface FaultRow {
  fault: string;
  /** Loops that could have been lost or doubled by the fault. */
  atRisk: number;
  lost: number;
  doubled: number;
  pass: boolean;
  /** Figures measured along the way, for the table's last column. */
  note?: string;
}

/** The long version runs under `npm run faults`; `npm test` runs the short one. */
export const LONG = process.env.FAULTS_LONG === '1';

/** `short` in `npm test`, `long` in `npm run faults`. */
export function scale<T>(short: T, long: T): T {
  return LONG ? long : short;
}

/** Adds a row to the results file the suite's teardown prints (nothing outside the suite). */
export function recordRow(row: FaultRow): void {
  const file = process.env.FAULTS_RESULTS;
  if (file) appendFileSync(file, `${JSON.stringify(row)}\n`);
}
