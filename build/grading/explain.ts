// The answer in the table's shape (docs/grading.md "The answer as a table"): for each factor, the
// value entered, its cell at the grade found and at the grade above, whether each is met, and
// which cell decided. GET /grade draws it; a program may too. Bundled with the grader.
import type { Factor, Threshold } from '../types.ts';
import { check } from './check.ts';
import { gradingContext } from './grading-context.ts';
import { printedNumber } from './printed.ts';
import type { RecordToGrade, Sample } from './sample.ts';

interface CellShown {
  grade: string;
  /** The cell as printed: `0.04 %`, `no limit`, `n/a`, or the standard's text. */
  text: string;
  state: 'met' | 'failed' | 'missing';
}

interface Row {
  factor_id: string;
  label: string;
  /** What the sample gave: `0.05 %`, a judged grade, or null. */
  entered: string | null;
  at: CellShown | null;
  above: CellShown | null;
  /** Which cell decided the answer: the grade above (it kept the sample from it), the grade found, or none. */
  deciding: 'at' | 'above' | null;
  /** For an undecided judgement: the grade whose standard would settle it, and that standard. */
  judgment: { grade: string; standard: string | null } | null;
}

/** What explain reads of the grader's result (grade.ts, GradeResult). */
interface GradeFound {
  result: string;
  grade: string | null;
  limiting: { factor_id: string }[];
  outcomes: { factor_id: string }[];
}

function cellText(f: Factor, t: Threshold | undefined): string {
  if (!t || t.value_type === 'not_applicable') return 'n/a';
  if (t.value_type === 'no_limit') return 'no limit';
  if (t.value_type !== 'numeric') return String(t.value);
  const n = printedNumber(t);
  const alt = t.value_alt !== null && f.unit_alt ? ` (${t.value_alt} ${f.unit_alt})` : '';
  const part = t.partial ? ` of ${t.partial.of.join(' and ')}` : '';
  return `${n} ${f.unit}${alt}${part}`.replace(/ +/g, ' ').trim();
}

function entered(f: Factor, s: Sample): string | null {
  const v = s.values?.[f.factor_id];
  if (v !== undefined) return `${v} ${f.unit}`.trim();
  const alt = s.alt_values?.[f.factor_id];
  if (alt !== undefined) return `${alt} ${f.unit_alt ?? ''}`.trim();
  const judged = s.judgments?.[f.factor_id];
  if (judged !== undefined)
    return `judged ${judged}${s.accounts?.[f.factor_id] ? `, on account of ${s.accounts[f.factor_id]}` : ''}`;
  return null;
}

/** The rows of the answer `result` gave for `sample`, or null where there is no ladder to show (no track). */
export function explain(
  record: RecordToGrade,
  sample: Sample,
  result: GradeFound,
): { at: string; above: string | null; rows: Row[] } | null {
  // the grader's own setup (grading-context.ts): its ladder, and its factors after the colour rules
  const setup = gradingContext(record, sample);
  if (!setup) return null;
  const { x } = setup;
  const { ladder, factors } = x;
  const last = ladder.length - 1;
  let at = last;
  if (result.result === 'grade')
    at = Math.max(
      0,
      ladder.findIndex((g) => result.grade?.startsWith(g)),
    );
  if (result.result === 'undetermined') {
    const stop = ladder.findIndex((_, i) => factors.every((f) => check(x, f, i) !== 'fail'));
    at = stop < 0 ? last : stop;
  }
  const limiting = new Set(result.limiting.map((l) => l.factor_id));
  const failing = new Set(result.outcomes.map((o) => o.factor_id));
  const shownAt = (f: Factor, i: number): CellShown => {
    const c = check(x, f, i);
    const state = c === 'pass' ? 'met' : c === 'fail' ? 'failed' : 'missing';
    return { grade: ladder[i]!, text: cellText(f, f.thresholds[ladder[i]!]), state };
  };
  const rows = factors.map((f): Row => {
    const here = shownAt(f, at);
    const up = at > 0 ? shownAt(f, at - 1) : null;
    const c = check(x, f, at);
    const deciding =
      result.result === 'fallthrough'
        ? failing.has(f.factor_id) || limiting.has(f.factor_id)
          ? 'at'
          : null
        : result.result === 'grade'
          ? limiting.has(f.factor_id) && up
            ? 'above'
            : null
          : here.state === 'missing'
            ? 'at'
            : null;
    const judgment =
      typeof c === 'object' && c.judgment ? { grade: c.judgment.grade, standard: c.judgment.standard } : null;
    return {
      factor_id: f.factor_id,
      label: f.factor_label,
      entered: entered(f, sample),
      at: here,
      above: up,
      deciding,
      judgment,
    };
  });
  return { at: ladder[at]!, above: at > 0 ? ladder[at - 1]! : null, rows };
}
