// Lower grades are never stricter (docs/dataset-editing.md): down each ladder a maximum never
// falls and a minimum never rises, unless the row carries a waiver saying why the authority's
// table does; a waiver on a row that needs none, or on a row that cannot have one, is refused.
import { printedNumber } from '../grading/printed.ts';
import type { Problem } from '../load/load.ts';
import type { Factor, Threshold } from '../types.ts';

/** Lower grades must not be stricter: a maximum never falls, a minimum never rises (per ladder). */
function monotonicProblem(f: Factor, ladders: string[][]): string | null {
  for (const ladder of ladders) {
    let prev: { grade: string; v: number } | null = null;
    for (const grade of ladder) {
      const t = f.thresholds[grade]!;
      const v =
        t.value_type === 'numeric'
          ? (t.value as number)
          : t.value_type === 'no_limit'
            ? f.threshold_direction === 'minimum'
              ? -Infinity
              : Infinity
            : null;
      // A judgement is no stricter than the limits above it: the grader answers it from them (docs/grading.md).
      if (t.value_type === 'qualitative_judgment' && prev && !Number.isFinite(prev.v))
        return `the judgement for "${grade}" follows "${prev.grade}", which has no limit: check the transcription`;
      if (v === null) continue;
      if (prev) {
        const stricter = f.threshold_direction === 'maximum' ? v < prev.v : v > prev.v;
        if (stricter) {
          return (
            `the ${f.threshold_direction} for "${grade}" (${fmt(t)}) ` +
            `is stricter than for the higher grade "${prev.grade}"; ` +
            'check the transcription, or give the row a monotonic_waiver with the reason'
          );
        }
      }
      prev = { grade, v };
    }
  }
  return null;
}
const fmt = (t: Threshold) => (t.value_type === 'numeric' ? printedNumber(t) : t.value_type.replace('_', ' '));

/** A row that gets stricter down a ladder needs a waiver; a waiver on any other row is refused. */
export function waiverProblems(factor: Factor, waived: boolean, ladders: string[][], gradeCount: number): Problem[] {
  const { thresholds } = factor;
  if (factor.threshold_direction === 'qualitative' || Object.keys(thresholds).length !== gradeCount)
    return waived ? [{ at: ['monotonic_waiver'], message: 'only a numeric row can be waived' }] : [];
  const out: Problem[] = [];
  const problem = monotonicProblem(factor, ladders);
  if (problem && !waived) out.push({ at: ['thresholds'], message: problem });
  if (waived && Object.values(thresholds).some((t) => t.value_type === 'qualitative_judgment'))
    out.push({
      at: ['monotonic_waiver'],
      message: 'the grader answers a judgement cell from the limits above it: no waiver',
    });
  if (!problem && waived)
    out.push({
      at: ['monotonic_waiver'],
      message: 'the row never gets stricter at a lower grade, so the waiver is not needed; remove it',
    });
  return out;
}
