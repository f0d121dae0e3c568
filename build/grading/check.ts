// One factor against one grade's cell (docs/grading.md "The rules"): met, failed, or undecided for
// want of a value or a judgement. Limits loosen down the ladder, so a value within a stricter
// numeric limit of the factor meets a judgement cell below it, and a judged grade meets every
// lower grade's cell: a judgement is asked for only where neither answers the cell.
import type { Factor, Threshold } from '../types.ts';
import type { RecordToGrade, Sample } from './sample.ts';

export interface Context {
  record: RecordToGrade;
  sample: Sample;
  ladder: string[];
  factors: Factor[];
  byId: Map<string, Factor>;
}

/** What would settle an undecided cell: a value (or a judgement) of `missing`; `judgment` when one would. */
export interface Missing {
  missing: string;
  judgment?: { factor_id: string; grade: string; standard: string | null };
}
export type Check = 'pass' | 'fail' | Missing;

/** A number rounded to `decimals` places the way it is written (no binary surprises: 1.005 → 1.01). */
export const roundTo = (v: number, decimals: number) =>
  Number(`${Math.round(Number(`${v}e${decimals}`))}e-${decimals}`);

/**
 * The value the sample gives a factor, or what is missing: a minimum must be given, and so must a
 * Total unless every part it counts has a row (parts_stated `all`, no unlisted part): then it is
 * the sum of its parts.
 */
export function measured(x: Context, f: Factor): number | 'alt' | 'missing' {
  const v = x.sample.values?.[f.factor_id];
  if (v !== undefined) return v;
  if (x.sample.alt_values?.[f.factor_id] !== undefined) return 'alt';
  if (f.is_aggregate) return sumOfParts(x, f) ?? 'missing';
  return f.threshold_direction === 'maximum' ? 0 : 'missing';
}

function sumOfParts(x: Context, total: Factor): number | null {
  if (total.parts_stated !== 'all' || total.unlisted_parts?.length) return null;
  let sum = 0;
  for (const id of total.aggregates ?? []) {
    const part = x.byId.get(id);
    const v = part ? measured(x, part) : 'missing';
    if (typeof v !== 'number') return null;
    sum += v;
  }
  return sum;
}

/** The best grade index a judgement allows on this factor, after its floor rule. */
function judgedIndex(x: Context, f: Factor): number | undefined {
  const judged = x.sample.judgments?.[f.factor_id];
  if (judged === undefined) return undefined;
  let i = x.ladder.indexOf(judged);
  if (i < 0) i = x.ladder.length; // a grade of another track: none of this ladder's
  const account = x.sample.accounts?.[f.factor_id];
  const rule = x.record.grade_floor_rules.find((r) => r.account === account);
  const floor = rule ? x.ladder.indexOf(rule.floor_grade) : -1;
  return floor >= 0 ? Math.min(i, floor) : i;
}

const meets = (f: Factor, value: number, limit: number, decimals: number) => {
  const rounded = roundTo(value, decimals);
  return f.threshold_direction === 'minimum' ? rounded >= limit : rounded <= limit;
};

/** A numeric cell against the measured value (a partial limit's parts, or the alternative unit). */
function numeric(x: Context, f: Factor, cell: Threshold): Check {
  const v = measured(x, f);
  if (v === 'alt') {
    if (cell.value_alt === null) return { missing: f.factor_id };
    return meets(f, x.sample.alt_values![f.factor_id]!, cell.value_alt as number, 0) ? 'pass' : 'fail';
  }
  const limit = cell.value as number;
  const decimals = cell.decimals ?? 0;
  if (cell.partial) {
    // The limit is on some parts only: their sum decides, unless the whole is already within it.
    const part = x.sample.values?.[cell.partial.key];
    if (part !== undefined) return meets(f, part, limit, decimals) ? 'pass' : 'fail';
    if (typeof v === 'number' && meets(f, v, limit, decimals)) return 'pass';
    return { missing: cell.partial.key };
  }
  if (v === 'missing') return { missing: f.factor_id };
  return meets(f, v, limit, decimals) ? 'pass' : 'fail';
}

/** The grade index of the strictest numeric cell above `gradeIndex` that the measured value meets, if any. */
export function metAbove(x: Context, f: Factor, gradeIndex: number): number | undefined {
  for (let j = 0; j < gradeIndex; j++) {
    const cell = f.thresholds[x.ladder[j]!];
    if (cell?.value_type === 'numeric' && !cell.partial && numeric(x, f, cell) === 'pass') return j;
  }
  return undefined;
}

export function check(x: Context, f: Factor, gradeIndex: number): Check {
  const grade = x.ladder[gradeIndex]!;
  const cell: Threshold | undefined = f.thresholds[grade];
  if (!cell || cell.value_type === 'no_limit' || cell.value_type === 'not_applicable') return 'pass';
  if (cell.value_type === 'numeric') return numeric(x, f, cell);
  // a judgement cell below a stricter limit the value meets is met: limits loosen down the ladder
  if (cell.value_type === 'qualitative_judgment' && metAbove(x, f, gradeIndex) !== undefined) return 'pass';
  const judged = judgedIndex(x, f);
  if (judged !== undefined) return judged <= gradeIndex ? 'pass' : 'fail';
  const standard = typeof cell.value === 'string' ? cell.value : null;
  return { missing: f.factor_id, judgment: { factor_id: f.factor_id, grade, standard } };
}
