// A numeric cell as the authority prints it: its value with the decimals it printed (0.10 stays
// 0.10), and the alternative unit's value in brackets where it gives one (test weight). The tables'
// pages, the answer as a table (explain.ts), the build's messages and the importer's check read it.
import type { Threshold } from '../types.ts';

/** A numeric cell's value with its printed decimals. */
export const printedNumber = (t: Pick<Threshold, 'value' | 'decimals'>) => (t.value as number).toFixed(t.decimals ?? 0);

/** A numeric cell's value as printed, with the alternative unit's value in brackets: `70 (356)`. */
export const printedValue = (t: Pick<Threshold, 'value' | 'decimals' | 'value_alt'>) =>
  `${printedNumber(t)}${t.value_alt !== null ? ` (${t.value_alt})` : ''}`;
