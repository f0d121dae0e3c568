// A factor's fall-through outcomes as data (docs/grading.md "What the records say about
// outcomes"): what the authority's last column says happens to a sample that fails the lowest
// grade on this factor, typed, with its placeholders and conditions, so that a program can act on
// it. Derived at build from the printed text and the editor's fallthrough_conditions; a text this
// grammar cannot type is an error for the editor, never a guess. Where the page states nothing for
// some values, the outcome says `not_stated`.
import { parseCondition } from '../grading/outcome-condition.ts';
import type { Factor, FallthroughOutcome, OutcomeKind } from '../types.ts';

type Typed = Omit<FallthroughOutcome, 'condition' | 'region'>;

const PLACEHOLDERS = ['grade', 'class', 'colour'] as const;

/** The printed text's dashes and spaces made plain, so that one grammar reads every page. */
const plain = (s: string) =>
  s
    .replace(/\s*[–—]\s*/g, ' - ')
    .replace(/\s+/g, ' ')
    .trim();

/** `Rejected grade` and `Rejected (grade)` both leave the grade to be filled in. */
function templateOf(text: string): { template: string; placeholders: Typed['placeholders'] } {
  const template = plain(text)
    .replace(/\bRejected grade\b/, 'Rejected (grade)')
    .replace(/\((grade|class|colour)\)/g, '{$1}');
  return { template, placeholders: PLACEHOLDERS.filter((p) => template.includes(`{${p}}`)) };
}

const KINDS: [RegExp, OutcomeKind][] = [
  [/^See /, 'cross_reference'],
  [/^Use all other grading criteria and grade as |^Appropriate mixed grade$/, 'colour_change'],
  [/\bRejected\b/, 'rejected'],
  [/\bSalvage\b/, 'salvage'],
  [/^Mixed Grain\b/, 'mixed_grain'],
  [/^Refuse screenings$/, 'other_commodity'],
  [/\bsample\b/i, 'sample'], // "sample Cracked Corn and Foreign Material" is printed in lower case
];

/** One printed outcome → its type, or a sentence saying why it cannot be typed. */
function typeOutcome(text: string): Typed | { error: string } {
  const t = plain(text);
  const kind = KINDS.find(([re]) => re.test(t))?.[1];
  if (!kind) {
    return {
      error:
        `cannot tell what kind of outcome "${t}" is (a Sample, a Rejected grade, a Salvage, Mixed Grain, ` +
        'a colour change, "See …", or Refuse screenings); write the outcome as the page prints it',
    };
  }
  const { template, placeholders } = templateOf(t);
  const account = /\bAccount (.+)$/.exec(t)?.[1] ?? null;
  return {
    kind,
    text: t,
    template,
    placeholders,
    account,
    refers_to: kind === 'cross_reference' ? t.slice('See '.length) : null,
    // the colour a colour change gives: Mixed (corn "… Corn (grade) Mixed"; soybeans "Appropriate mixed grade")
    colour: kind === 'colour_change' ? 'Mixed' : null,
  };
}

const NOT_STATED: Typed = {
  kind: 'not_stated',
  text: null,
  template: null,
  placeholders: [],
  account: null,
  refers_to: null,
  colour: null,
};

/**
 * The values, above the lowest grade's limit, that the conditions leave without an outcome (in
 * either region), as conditions: "50% or less - Mixed Grain CW Barley" and nothing for more
 * leaves "> 50%" not stated. Conditions are an upper and a lower part around one bound.
 */
function uncovered(conditions: { condition: string }[], limit: number | null): string[] {
  // the schema has held each to the grammar (outcome-condition.ts)
  const parsed = conditions.map((c) => parseCondition(c.condition)!);
  const below = parsed.filter((c) => c.op.startsWith('<'));
  const above = parsed.filter((c) => c.op.startsWith('>'));
  const gaps: string[] = [];
  const top = below.reduce((m, c) => Math.max(m, c.bound), -Infinity);
  if (below.length && !above.some((a) => a.bound <= top)) gaps.push(`> ${top}%`);
  const bottom = above.reduce((m, c) => Math.min(m, c.bound), Infinity);
  if (!below.length && above.length && limit !== null && bottom > limit) gaps.push(`<= ${bottom}%`);
  return gaps;
}

/**
 * The outcomes of one factor: null when no value can fail its lowest grade (no limit there);
 * otherwise each printed outcome, typed, with its condition and region, then `not_stated` for
 * what the page leaves open.
 */
export function outcomesOf(
  factor: Pick<Factor, 'fallthrough' | 'fallthrough_conditions'>,
  lowest: { canFail: boolean; limit: number | null },
): { outcomes: FallthroughOutcome[] | null; errors: { at: (string | number)[]; message: string }[] } {
  const errors: { at: (string | number)[]; message: string }[] = [];
  if (!lowest.canFail && factor.fallthrough === null) return { outcomes: null, errors };
  if (factor.fallthrough === null) return { outcomes: [{ condition: null, region: null, ...NOT_STATED }], errors };
  const conditions = factor.fallthrough_conditions;
  if (!conditions) {
    const typed = typeOutcome(factor.fallthrough);
    if ('error' in typed) return { outcomes: null, errors: [{ at: ['fallthrough'], message: typed.error }] };
    return { outcomes: [{ condition: null, region: null, ...typed }], errors };
  }
  const outcomes: FallthroughOutcome[] = [];
  for (const [k, c] of conditions.entries()) {
    const typed = typeOutcome(c.grade);
    if ('error' in typed) errors.push({ at: ['fallthrough_conditions', k, 'grade'], message: typed.error });
    else outcomes.push({ condition: c.condition, region: c.region, ...typed });
  }
  for (const gap of uncovered(conditions, lowest.limit)) outcomes.push({ condition: gap, region: null, ...NOT_STATED });
  return { outcomes: errors.length ? null : outcomes, errors };
}
