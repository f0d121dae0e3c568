// Samples made from a record: a clean one that meets the best grade of a ladder, and one for every
// fall-through a record holds (each factor past its lowest grade's limit, once per outcome's
// condition and region, on every track), for the tests that walk every outcome of every class.
import { roundTo, type Sample } from '../../build/grading/grade.ts';
import type { CompiledRecord, Factor } from '../../build/types.ts';

const factorsOf = (r: CompiledRecord) => r.factor_groups.flatMap((g) => g.factors);
const judged = (f: Factor) => Object.values(f.thresholds).some((t) => t.value_type.startsWith('qualitative'));

/** A sample that meets the best grade of `ladder` on every factor. */
export function cleanSample(r: CompiledRecord, ladder = r.variety_tracks?.[0]?.grades ?? r.grades): Sample {
  const values: Record<string, number> = {};
  const judgments: Record<string, string> = {};
  for (const f of factorsOf(r)) {
    if (judged(f)) judgments[f.factor_id] = ladder[0]!;
    if (f.is_aggregate) values[f.factor_id] = 0;
    if (f.threshold_direction === 'minimum') {
      const limits = ladder.map((g) => f.thresholds[g]!).filter((t) => t.value_type === 'numeric');
      values[f.factor_id] = Math.max(...limits.map((t) => t.value as number));
    }
  }
  const track = r.variety_tracks?.find((t) => t.grades === ladder)?.track_id;
  return {
    values,
    judgments,
    ...(track ? { track } : {}),
    ...(r.colour_modifier ? { colour: r.colours![0] } : {}),
    region: r.region ?? 'western',
  };
}

/** A value past `limit` that meets `condition` ("<= 2.5%", "> 50%", or none), or null when none can. */
function pastLimit(f: Factor, limit: number, decimals: number, condition: string | null): number | null {
  const step = 10 ** -decimals;
  if (f.threshold_direction === 'minimum') return limit - step > 0 ? roundTo(limit - step, 6) : null;
  const just = roundTo(limit + step, 6);
  if (condition === null) return just;
  const bound = Number.parseFloat(condition.split(' ')[1]!);
  const v = condition.startsWith('<') ? just : Math.max(just, bound + 1);
  if (condition.startsWith('<=') ? v > bound : condition.startsWith('<') ? v >= bound : v <= bound) return null;
  return v <= 100 ? v : null;
}

export function fallthroughSamples(r: CompiledRecord): { factor_id: string; sample: Sample }[] {
  const out: { factor_id: string; sample: Sample }[] = [];
  for (const ladder of r.variety_tracks?.map((t) => t.grades) ?? [r.grades]) {
    const clean = cleanSample(r, ladder);
    for (const f of factorsOf(r)) {
      const cell = f.thresholds[ladder.at(-1)!];
      const outcomes = f.fallthrough_outcomes ?? [];
      if (cell?.value_type !== 'numeric' || outcomes.some((o) => o.kind === 'colour_change')) continue;
      for (const o of outcomes) {
        const v = pastLimit(f, cell.value as number, cell.decimals ?? 0, o.condition);
        if (v === null) continue;
        const values = { ...clean.values, [f.factor_id]: v };
        if (cell.partial) values[cell.partial.key] = v;
        for (const t of factorsOf(r)) if (t.aggregates?.includes(f.factor_id)) values[t.factor_id] = v;
        out.push({ factor_id: f.factor_id, sample: { ...clean, values, region: o.region ?? clean.region } });
      }
    }
  }
  return out;
}
