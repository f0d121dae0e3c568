// The reference grader (issue 16): grade(record, sample) decides a sample's grade from a synced
// grain record alone, as a person reading the authority's table would. No runtime dependency:
// esbuild bundles this file into the public module /client/grade.js. The rules, which the README
// and docs/grading.md state for users:
// - the grade is the highest grade of the ladder whose every cell the sample meets;
// - a measured value is rounded to the decimals the cell prints, then compared; limits are
//   inclusive (a maximum of 0.04 admits 0.04; a minimum of 75 admits 75);
// - `no_limit` and `not_applicable` cells never keep a sample from a grade; a qualitative cell, or
//   a judgement cell, is met when the inspector judged the sample to meet that grade or a better one;
// - a maximum factor left out counts as 0; a minimum and a judgement must be given, and so must a
//   Total, unless the record says every part it counts has a row (then it is their sum);
// - a floor rule caps how low its account can take the sample on that factor alone;
// - failing the lowest grade gives the factor's fall-through outcomes, every one that applies.
import type { Factor, FallthroughOutcome, Threshold } from '../types.ts';
import { checkSample, type GradeError, type Rec, type Sample } from './sample.ts';

export type { GradeError, Sample } from './sample.ts';

export interface Limiting {
  factor_id: string;
  value: number | string | null;
  limit: number | string | null;
  grade: string;
}

export interface GradeResult {
  result: 'grade' | 'fallthrough' | 'undetermined';
  grade: string | null;
  outcomes: string[];
  limiting: Limiting[];
  /** Factor ids whose value or judgement would decide it, and `track`, `region` or `colour`. */
  missing: string[];
}

/** A cell met, failed, or undecided for want of a value or judgement (named: a factor id or a partial key). */
type Check = 'pass' | 'fail' | { missing: string };

/** A number rounded to `decimals` places the way it is written (no binary surprises: 1.005 → 1.01). */
export const roundTo = (v: number, decimals: number) =>
  Number(`${Math.round(Number(`${v}e${decimals}`))}e-${decimals}`);

interface Context {
  record: Rec;
  sample: Sample;
  ladder: string[];
  factors: Factor[];
  byId: Map<string, Factor>;
}

/**
 * The value the sample gives a factor, or what is missing: a minimum must be given, and so must a
 * Total unless every part it counts has a row (parts_stated `all`, no unlisted part): then it is
 * the sum of its parts.
 */
function measured(x: Context, f: Factor): number | 'alt' | 'missing' {
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

function check(x: Context, f: Factor, gradeIndex: number): Check {
  const cell: Threshold | undefined = f.thresholds[x.ladder[gradeIndex]!];
  if (!cell || cell.value_type === 'no_limit' || cell.value_type === 'not_applicable') return 'pass';
  if (cell.value_type === 'qualitative' || cell.value_type === 'qualitative_judgment') {
    const judged = judgedIndex(x, f);
    if (judged === undefined) return { missing: f.factor_id };
    return judged <= gradeIndex ? 'pass' : 'fail';
  }
  const v = measured(x, f);
  const meets = (value: number, limit: number, decimals: number) => {
    const rounded = roundTo(value, decimals);
    return f.threshold_direction === 'minimum' ? rounded >= limit : rounded <= limit;
  };
  if (v === 'alt') {
    if (cell.value_alt === null) return { missing: f.factor_id };
    return meets(x.sample.alt_values![f.factor_id]!, cell.value_alt, 0) ? 'pass' : 'fail';
  }
  const limit = cell.value as number;
  const decimals = cell.decimals ?? 0;
  if (cell.partial) {
    // The limit is on some parts only: their sum decides, unless the whole is already within it.
    const part = x.sample.values?.[cell.partial.key];
    if (part !== undefined) return meets(part, limit, decimals) ? 'pass' : 'fail';
    if (typeof v === 'number' && meets(v, limit, decimals)) return 'pass';
    return { missing: cell.partial.key };
  }
  if (v === 'missing') return { missing: f.factor_id };
  return meets(v, limit, decimals) ? 'pass' : 'fail';
}

const shown = (x: Context, f: Factor, gradeIndex: number): Limiting => {
  const cell = f.thresholds[x.ladder[gradeIndex]!];
  const v = measured(x, f);
  return {
    factor_id: f.factor_id,
    value:
      typeof v === 'number'
        ? v
        : v === 'alt'
          ? x.sample.alt_values![f.factor_id]!
          : (x.sample.judgments?.[f.factor_id] ?? null),
    limit: cell?.value ?? null,
    grade: x.ladder[gradeIndex]!,
  };
};

/** The highest grade every factor allows, the factors that fail the lowest one, or what is missing. */
function ladderGrade(x: Context): { index: number } | { missing: string[] } | { failing: Factor[] } {
  const missingOf = (checks: Check[]) => checks.flatMap((c) => (typeof c === 'object' ? [c.missing] : []));
  for (let i = 0; i < x.ladder.length; i++) {
    const checks = x.factors.map((f) => check(x, f, i));
    if (checks.includes('fail')) continue;
    const missing = missingOf(checks);
    return missing.length ? { missing } : { index: i };
  }
  const last = x.ladder.length - 1;
  const checks = x.factors.map((f) => check(x, f, last));
  const failing = x.factors.filter((_, k) => checks[k] === 'fail');
  return failing.length ? { failing } : { missing: missingOf(checks) };
}

const matches = (o: FallthroughOutcome, value: number | null, region: string | undefined) => {
  if (o.region !== null && o.region !== region) return false;
  if (o.condition === null) return true;
  if (value === null) return false;
  const [op, bound] = [o.condition.split(' ')[0]!, Number.parseFloat(o.condition.split(' ')[1]!)];
  return op === '<=' ? value <= bound : op === '<' ? value < bound : op === '>=' ? value >= bound : value > bound;
};

const undetermined = (missing: string[], limiting: Limiting[] = []): GradeResult => ({
  result: 'undetermined',
  grade: null,
  outcomes: [],
  limiting,
  missing: [...new Set(missing)],
});

export function grade(record: Rec, input: unknown): GradeResult | GradeError {
  const problem = checkSample(record, input);
  if (problem) return problem;
  const sample = input as Sample;
  let ladder = record.grades;
  if (record.variety_tracks) {
    const track = record.variety_tracks.find((t) => t.track_id === sample.track);
    if (!track) return undetermined(['track']);
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
  return decide(x, colour);
}

/** A footnote's instruction for the track's Sample grades (barley: add "Hulless"), said with the outcome. */
function withSuffix(x: Context, kind: string, text: string): string {
  if (kind !== 'sample') return text;
  const rule = x.record.footnote_rules.find((r) => r.effect === 'sample_name_suffix' && r.track === x.sample.track);
  return rule?.suffix ? `${text} (add “${rule.suffix}” to the Sample grade name: footnote ${rule.footnote})` : text;
}

function decide(x: Context, colour: string | undefined): GradeResult {
  const found = ladderGrade(x);
  if ('missing' in found) return undetermined(found.missing);
  if ('index' in found) {
    const limiting = found.index > 0 ? x.factors.filter((f) => check(x, f, found.index - 1) === 'fail') : [];
    const shownLimits = limiting.map((f) => shown(x, f, found.index - 1));
    const name = x.ladder[found.index]!;
    if (!x.record.colour_modifier)
      return { result: 'grade', grade: name, outcomes: [name], limiting: shownLimits, missing: [] };
    if (!colour) return undetermined(['colour'], shownLimits);
    const named = `${name} ${colour}`;
    return { result: 'grade', grade: named, outcomes: [named], limiting: shownLimits, missing: [] };
  }
  // Fall-through: every failing factor's outcome, in the page's order.
  const last = x.ladder.length - 1;
  const outcomes: string[] = [];
  const missing: string[] = [];
  for (const f of found.failing) {
    // the value the outcome's condition reads: a partial limit's parts, else the factor's own
    const partial = f.thresholds[x.ladder[last]!]?.partial;
    const v = partial ? (x.sample.values?.[partial.key] ?? 'missing') : measured(x, f);
    const value = typeof v === 'number' ? v : null;
    const candidates = f.fallthrough_outcomes ?? [];
    if (candidates.some((o) => o.region !== null) && !x.sample.region) {
      missing.push('region');
      continue;
    }
    const o = candidates.find((c) => matches(c, value, x.sample.region));
    if (!o || o.kind === 'not_stated' || o.template === null) {
      outcomes.push(`Not stated by the authority: ${f.factor_label} past the ${x.ladder[last]} limit`);
      continue;
    }
    let text = o.template;
    if (o.placeholders.includes('grade')) {
      const others = decide({ ...x, factors: x.factors.filter((g) => g !== f) }, colour);
      if (others.result === 'undetermined') missing.push(...others.missing);
      const base = others.result === 'grade' ? x.ladder.find((g) => others.grade!.startsWith(g)) : x.ladder[last];
      text = text.replace('{grade}', base ?? x.ladder[last]!);
    }
    if (o.placeholders.includes('class') || o.placeholders.includes('colour')) {
      if (!colour) missing.push('colour');
      text = text.replace('{class}', colour ?? '{class}').replace('{colour}', colour ?? '{colour}');
    }
    outcomes.push(withSuffix(x, o.kind, text));
  }
  const limiting = found.failing.map((f) => shown(x, f, last));
  if (missing.length) return undetermined(missing, limiting);
  return { result: 'fallthrough', grade: outcomes[0] ?? null, outcomes, limiting, missing: [] };
}
