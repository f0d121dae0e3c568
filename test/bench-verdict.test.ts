// bench:compare's judgement (scripts/bench/verdict.ts): rounds of after ÷ before read as faster,
// slower or within noise, and one verdict from every reading.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { judge, overall, quantile, type Verdict } from '../scripts/bench/verdict.ts';

it('quantiles interpolate between the sorted rounds', () => {
  for (const [xs, q, want] of [
    [[1, 2, 3, 4, 5], 0.25, 2],
    [[5, 1, 4, 2, 3], 0.75, 4],
    [[1, 2, 3, 4], 0.25, 1.75],
    [[1, 2, 3, 4], 0.5, 2.5],
    [[7], 0.25, 7],
    [[], 0.5, NaN],
  ] as const)
    assert.equal(quantile([...xs], q), want, `${xs} at ${q}`);
});

it('a reading counts only when its middle half lies outside the control’s and 1 ± 1%', () => {
  const quiet = [1.002, 0.998, 1.001, 0.999, 1.0, 1.003];
  const offset = [1.02, 1.03, 1.02, 1.025];
  for (const [name, ratios, control, want] of [
    ['all rounds faster', [1.05, 1.06, 1.04, 1.07, 1.05, 1.06], quiet, 'faster'],
    ['all rounds slower', [0.94, 0.95, 0.93, 0.96, 0.95, 0.94], quiet, 'slower'],
    ['one slow outlier among faster rounds', [1.05, 1.06, 0.8, 1.07, 1.05, 1.06], quiet, 'faster'],
    ['the quartiles straddle 1', [0.9, 0.97, 1.02, 1.04, 1.08, 1.12], quiet, 'within noise'],
    ['every round faster, by under 1%', [1.004, 1.006, 1.008, 1.005, 1.007, 1.009], quiet, 'within noise'],
    ['faster, but no more than two of the same code differ', [1.015, 1.02, 1.03, 1.025], offset, 'within noise'],
    ['faster, beyond the control', [1.05, 1.06, 1.05, 1.07], offset, 'faster'],
    ['slower, beyond the control', [0.95, 0.96, 0.94, 0.95], offset, 'slower'],
    ['no control to judge by', [0.9, 0.91, 0.9, 0.92], [], 'within noise'],
    ['too few rounds to have a spread', [1.5, 1.6], quiet, 'within noise'],
    ['no rounds', [], quiet, 'within noise'],
  ] as const) {
    const j = judge([...ratios], [...control]);
    assert.equal(j.verdict, want, name);
    assert.ok(ratios.length === 0 || (j.q1 <= j.median && j.median <= j.q3), `${name}: quartiles around the median`);
    assert.ok(j.lower <= 0.99 && j.upper >= 1.01, `${name}: the band is 1 ± 1% at least`);
  }
});

it('the change is slower if any reading is, faster if some are and none is slower', () => {
  for (const [verdicts, want] of [
    [['faster', 'within noise', 'slower'], 'slower'],
    [['faster', 'within noise'], 'faster'],
    [['within noise', 'within noise'], 'within noise'],
    [[], 'within noise'],
  ] as [Verdict[], Verdict][])
    assert.equal(overall(verdicts), want);
});
