// Pure: which changes alter what a table prints, a number or a label (docs/contract.md, Changes as
// data), and so which entries correct a finished crop year's table (docs/dataset-editing.md, Crop
// years): the changelog's drafting, the build's guard and the pages all ask it here.
import type { Change, SourceEntry } from '../types.ts';

/** A threshold's fields its cell prints (pages/table-cells.ts, cellText); `partial` is the API's alone. */
const PRINTED_CELL_FIELDS: ReadonlySet<string> = new Set([
  'value',
  'value_type',
  'value_alt',
  'decimals',
  'threshold_note',
]);

/** A record's or a factor's fields the table prints as labels: its names, headings, units and footnotes. */
const PRINTED_LABELS: ReadonlySet<string> = new Set([
  'grain_name',
  'grades',
  'fallthrough_label',
  'factor_groups',
  'footnotes',
  'factor_label',
  'unit',
  'unit_alt',
]);

/**
 * Whether a change alters a number the table prints: a grade's cell (whole, or a field it prints),
 * a factor's fall-through cell, a whole factor's row added or removed, or a whole class.
 */
export function printsNumber(c: Change): boolean {
  if (c.factor_id === null) return c.field === null && c.grade === null;
  if (c.grade === null) return c.field === null || c.field === 'fallthrough';
  return c.field === null || PRINTED_CELL_FIELDS.has(c.field);
}

/** Whether a change rewrites what a published table prints (a number or a label); a class added or removed does not. */
function rewritesTable(c: Change): boolean {
  if (c.factor_id === null && c.grade === null && c.field === null) return false;
  return printsNumber(c) || (c.grade === null && c.field !== null && PRINTED_LABELS.has(c.field));
}

/** The last day of a crop year: 2025/26 → 2026-07-31 (a crop year runs from 1 August to 31 July). */
export const cropYearEnd = (year: string) => `${Number(year.slice(0, 4)) + 1}-07-31`;

/**
 * Whether an entry is a correction of its crop year's table: it takes effect after that year ended
 * and rewrites what a record of the year prints. Entries made before changes were recorded are not.
 */
export const correctsTable = (e: Pick<SourceEntry, 'crop_year' | 'effective_date' | 'changes'>) =>
  e.effective_date > cropYearEnd(e.crop_year) && (e.changes ?? []).some(rewritesTable);

/** How pages and the feed name a correction: "Correction to the 2025/26 table". */
export const correctionTitle = (year: string) => `Correction to the ${year} table`;

/**
 * Why `npm run changelog` writes nothing for these drafted entries, or null: an entry that would
 * rewrite a finished crop year's table is written only as a correction the editor asked for, and
 * `--correction` is refused where no entry is one. It never guesses which the editor meant.
 */
export function correctionRefusal(
  entries: SourceEntry[],
  asked: boolean,
  describe: (c: Change) => string,
): string | null {
  const late = entries.filter((e) => correctsTable(e));
  if (asked && !late.length) {
    return (
      "--correction is for an entry that changes what a finished crop year's table prints, taking effect after " +
      'that year ended; this change is not one: run again without --correction'
    );
  }
  const unmarked = late.find((e) => !e.correction);
  if (!unmarked) return null;
  const c = (unmarked.changes ?? []).find(rewritesTable)!;
  const year = unmarked.crop_year;
  return (
    `${unmarked.grain_ids_affected.join(', ')}: crop year ${year} ended on ${cropYearEnd(year)}, and this changes ` +
    `what its table prints (${c.grain_id} ${describe(c)}) as of ${unmarked.effective_date}. ` +
    `If the dataset misprinted the ${year} table, run again with --correction: the entry, the feed and the ` +
    `pages then say "${correctionTitle(year)}". ` +
    'If the authority published a new table, import its page with npm run import, which moves the record to that ' +
    "page's crop year, and draft the entry again"
  );
}
