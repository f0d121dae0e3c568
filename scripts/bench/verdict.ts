// bench:compare's judgement, pure: rounds of a ratio of ratios (the working tree's speed relative to
// bare node, over the ref's; above 1 is faster), read as faster, slower or within noise.
//
// How noise is judged: a round's ratio moves with whatever else the machine does, and two processes
// of the same code differ by a little for as long as they run (rounds share that offset, so their
// spread does not show it). So the run measures its own noise: a control pair, a second gateway of
// the working tree against the first, gives the ratio of two identical servers in the same rounds.
// A difference counts only when the middle half of its rounds (the interquartile range) lies wholly
// outside the band the control's middle half spans, widened to 1 ± NOISE_FLOOR at least (the
// at-once median moved by about 1% between runs of the same code: docs/performance.md, Method).
// Anything else is within noise; so is a reading of fewer than MIN_ROUNDS rounds (--quick), whose
// quartiles say nothing of the spread.

import { median } from './load.ts';

export type Verdict = 'faster' | 'slower' | 'within noise';

/** The narrowest band of noise around 1, whatever the control says. */
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
  /** The band of noise: the control's interquartile range, and 1 ± NOISE_FLOOR at least. */
  lower: number;
  upper: number;
  verdict: Verdict;
}

/**
 * The rounds' ratios of ratios (after ÷ before, each normalised to bare), judged against the
 * control's rounds (the working tree against itself, the same way).
 */
export function judge(ratios: number[], control: number[]): Judged {
  const m = median(ratios);
  const q1 = quantile(ratios, 0.25);
  const q3 = quantile(ratios, 0.75);
  const [c1, c3] = [quantile(control, 0.25), quantile(control, 0.75)]; // NaN without a control
  const lower = Number.isNaN(c1) ? 1 - NOISE_FLOOR : Math.min(1 - NOISE_FLOOR, c1);
  const upper = Number.isNaN(c3) ? 1 + NOISE_FLOOR : Math.max(1 + NOISE_FLOOR, c3);
  const verdict: Verdict =
    ratios.length < MIN_ROUNDS || control.length < MIN_ROUNDS
      ? 'within noise'
      : q1 > upper
        ? 'faster'
        : q3 < lower
          ? 'slower'
          : 'within noise';
  return { median: m, q1, q3, lower, upper, verdict };
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
