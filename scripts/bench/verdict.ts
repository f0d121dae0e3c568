// bench:compare's judgement, pure: rounds of a ratio of ratios (the working tree's speed relative to
// bare node, over the ref's; above 1 is faster), read as faster, slower or within noise.
//
// How noise is judged: a round's ratio moves with whatever else the machine does, so one median is
// not read alone. A difference counts only when the middle half of the rounds (the interquartile
// range) lies wholly on one side of 1, and the median is more than NOISE_FLOOR away from 1 (the
// at-once median moved by about 1% between runs of the same code: docs/performance.md, Method).
// Anything else is within noise, however far its median is from 1; so is a reading of fewer than
// MIN_ROUNDS rounds (--quick), whose quartiles say nothing of the spread.

import { median } from './load.ts';

export type Verdict = 'faster' | 'slower' | 'within noise';

/** A difference of the median smaller than this is within noise whatever the quartiles say. */
export const NOISE_FLOOR = 0.01;

/** Fewer rounds than this have no spread to judge by. */
const MIN_ROUNDS = 3;

/** The q-quantile (0..1) of xs, linearly interpolated between the sorted values. */
export function quantile(xs: number[], q: number): number {
  const v = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return NaN;
  const at = (v.length - 1) * q;
  const lo = Math.floor(at);
  return v[lo]! + (v[Math.min(lo + 1, v.length - 1)]! - v[lo]!) * (at - lo);
}

export interface Judged {
  median: number;
  q1: number;
  q3: number;
  verdict: Verdict;
}

/** The rounds' ratios of ratios (after ÷ before, each normalised to bare), judged. */
export function judge(ratios: number[]): Judged {
  const m = median(ratios);
  const q1 = quantile(ratios, 0.25);
  const q3 = quantile(ratios, 0.75);
  const verdict: Verdict =
    ratios.length < MIN_ROUNDS || !Number.isFinite(m) || Math.abs(m - 1) <= NOISE_FLOOR
      ? 'within noise'
      : q1 > 1
        ? 'faster'
        : q3 < 1
          ? 'slower'
          : 'within noise';
  return { median: m, q1, q3, verdict };
}

/**
 * The change's verdict from every request and mode: slower when any is (the request path must not
 * get slower, so one slower reading is worth a look), faster when some are and none is slower,
 * else within noise.
 */
export function overall(verdicts: Verdict[]): Verdict {
  if (verdicts.includes('slower')) return 'slower';
  return verdicts.includes('faster') ? 'faster' : 'within noise';
}
