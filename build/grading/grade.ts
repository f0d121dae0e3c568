// The reference grader: grade(record, sample) decides a sample's grade from a synced grain record
// alone, as a person reading the authority's table would. No runtime dependency: esbuild bundles
// this file into the public module /client/grade.js. docs/grading.md states the rules for users:
// - the grade is the highest grade of the ladder whose every cell the sample meets (check.ts);
// - a floor rule caps how low its account can take the sample on that factor alone;
// - failing the lowest grade gives the factor's fall-through outcomes, every one that applies;
// - `grade` is a grade name or null, never a sentence: where the page states no outcome, `grade`
//   is null and `reason` says why. The answer's shape: build/schema/grade-result.ts.
import type { FallthroughOutcome, GradeResult } from '../types.ts';
import { type Check, type Context, check, type Missing, measured } from './check.ts';
import { gradingContext } from './grading-context.ts';
import { meetsCondition } from './outcome-condition.ts';
import { checkSample, type GradeError, type RecordToGrade, type Sample } from './sample.ts';

export { type Check, type Context, check, metAbove, roundTo } from './check.ts';
export { explain } from './explain.ts';
export type { GradeError, RecordToGrade, Sample } from './sample.ts';
export { parseSample } from './sample-json.ts';

export type { GradeResult };
export type Limiting = GradeResult['limiting'][number];
export type Outcome = GradeResult['outcomes'][number];
type Needed = GradeResult['judgments_needed'][number];

const shown = (x: Context, f: Context['factors'][number], gradeIndex: number): Limiting => {
  const cell = f.thresholds[x.ladder[gradeIndex]!];
  const v = measured(x, f);
  const value =
    typeof v === 'number'
      ? v
      : v === 'alt'
        ? x.sample.alt_values![f.factor_id]!
        : (x.sample.judgments?.[f.factor_id] ?? null);
  return { factor_id: f.factor_id, value, limit: cell?.value ?? null, grade: x.ladder[gradeIndex]! };
};

const missingOf = (checks: Check[]) => checks.filter((c): c is Missing => typeof c === 'object');

/** The highest grade every factor allows, the factors that fail the lowest one, or what is missing. */
function ladderGrade(x: Context): { index: number } | { missing: Missing[] } | { failing: Context['factors'] } {
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
  return meetsCondition(value, o.condition);
};

const needs = (names: string[]) => `undetermined: a value or judgement is needed for ${names.join(', ')}`;

function undetermined(missing: (string | Missing)[], limiting: Limiting[] = []): GradeResult {
  const names = [...new Set(missing.map((m) => (typeof m === 'string' ? m : m.missing)))];
  const judgments: Needed[] = [];
  for (const m of missing) if (typeof m === 'object' && m.judgment) judgments.push(m.judgment);
  return {
    result: 'undetermined',
    grade: null,
    reason: needs(names),
    note: null,
    outcomes: [],
    limiting,
    missing: names,
    judgments_needed: judgments,
  };
}

const graded = (name: string, limiting: Limiting[]): GradeResult => ({
  result: 'grade',
  grade: name,
  reason: null,
  note: null,
  outcomes: [],
  limiting,
  missing: [],
  judgments_needed: [],
});

export function grade(record: RecordToGrade, input: unknown): GradeResult | GradeError {
  const problem = checkSample(record, input);
  if (problem) return problem;
  const sample = input as Sample;
  const setup = gradingContext(record, sample);
  if (!setup) return undetermined(['track']);
  return decide(setup.x, setup.colour);
}

/** A footnote's instruction for the track's Sample grades (barley: add "Hulless"), beside the grade. */
function noteFor(x: Context, kind: string): string | null {
  if (kind !== 'sample') return null;
  const rule = x.record.footnote_rules.find((r) => r.effect === 'sample_name_suffix' && r.track === x.sample.track);
  return rule?.suffix ? `add “${rule.suffix}” to the Sample grade name (footnote ${rule.footnote})` : null;
}

function decide(x: Context, colour: string | undefined): GradeResult {
  const found = ladderGrade(x);
  if ('missing' in found) return undetermined(found.missing);
  if ('index' in found) {
    const limiting = found.index > 0 ? x.factors.filter((f) => check(x, f, found.index - 1) === 'fail') : [];
    const shownLimits = limiting.map((f) => shown(x, f, found.index - 1));
    const name = x.ladder[found.index]!;
    if (!x.record.colour_modifier) return graded(name, shownLimits);
    if (!colour) return undetermined(['colour'], shownLimits);
    return graded(`${name} ${colour}`, shownLimits);
  }
  // Fall-through: every failing factor's outcome, in the page's order.
  const last = x.ladder.length - 1;
  const outcomes: Outcome[] = [];
  const missing: (string | Missing)[] = [];
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
      const reason = `not stated by the authority: ${f.factor_label} past the ${x.ladder[last]} limit`;
      outcomes.push({ factor_id: f.factor_id, kind: 'not_stated', grade: null, reason, note: null });
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
    outcomes.push({ factor_id: f.factor_id, kind: o.kind, grade: text, reason: null, note: noteFor(x, o.kind) });
  }
  const limiting = found.failing.map((f) => shown(x, f, last));
  if (missing.length) return undetermined(missing, limiting);
  // the grade: the first outcome the page states, in the page's order
  const first = outcomes.find((o) => o.grade !== null);
  const reason = first ? null : outcomes.map((o) => o.reason).join('; ');
  return {
    result: 'fallthrough',
    grade: first?.grade ?? null,
    reason,
    note: first?.note ?? null,
    outcomes,
    limiting,
    missing: [],
    judgments_needed: [],
  };
}
