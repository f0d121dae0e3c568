// The grader's setup, once: the sample's ladder (its variety track's, where the class has tracks), the
// factors it is graded on (its exclusions left out, then the colour rules applied), and the colour
// it is graded as. grade() decides from it and explain() draws the same factors (docs/grading.md).
import { type Context, check } from './check.ts';
import type { RecordToGrade, Sample } from './sample.ts';

/** The context and the colour the sample is graded as; null when the class has tracks and the sample names none. */
export function gradingContext(
  record: RecordToGrade,
  sample: Sample,
): { x: Context; colour: string | undefined } | null {
  let ladder = record.grades;
  if (record.variety_tracks) {
    const track = record.variety_tracks.find((t) => t.track_id === sample.track);
    if (!track) return null;
    ladder = track.grades;
  }
  const excluded = new Set(sample.exclude ?? []);
  const all = record.factor_groups.flatMap((g) => g.factors).filter((f) => !excluded.has(f.factor_id));
  const byId = new Map(record.factor_groups.flatMap((g) => g.factors.map((f) => [f.factor_id, f] as const)));
  const x: Context = { record, sample, ladder, factors: all, byId };
  // A factor whose only outcome is a colour change (corn's other classes, soybeans' other colours)
  // does not lower the grade: past the lowest grade's limit the sample is graded as Mixed.
  const last = ladder.length - 1;
  let colour = sample.colour;
  x.factors = all.filter((f) => {
    const change = f.fallthrough_outcomes?.find((o) => o.kind === 'colour_change');
    if (!change || check(x, f, last) !== 'fail') return true;
    colour = change.colour ?? colour;
    return false;
  });
  // A footnote may set factors aside for a colour (soybeans: other colours, for Mixed soybeans).
  for (const rule of record.footnote_rules) {
    if (rule.effect !== 'not_applicable_for_colour' || rule.colour !== colour) continue;
    x.factors = x.factors.filter((f) => !rule.factor_ids.includes(f.factor_id));
  }
  return { x, colour };
}
