// Pure: what the changelog says changed in one class, told apart as a reader of its table page
// needs it (docs/contract.md, The front door, "What changed"): a printed number (a cell of the
// table, a row of them, the whole table) or only the API's fields (crop_years, the grading
// fields, a threshold's `partial`), which leave every printed number as it was. The tables
// index, the table pages and the changes feed read it; none of them decides it on its own.

import { printsNumber } from '../changelog/printed.ts';
import { changelogOrder } from '../compile/compile.ts';
import type { Change, SourceEntry } from '../types.ts';

/** Whether a change names a cell of the table (a grade's, or the fall-through): one a page can mark. */
export const namesCell = (c: Change) =>
  c.factor_id !== null && (c.grade !== null || c.field === 'fallthrough') && printsNumber(c);

/** An entry, with its changes to one class. */
interface EntryChanges {
  entry: SourceEntry;
  changes: Change[];
}

export interface ClassChanges {
  /** The newest entry that changed a printed number of the class, with its changes to the class. */
  numbers: EntryChanges | null;
  /**
   * The newest entry naming the class that changed only the API's fields, when it is newer than
   * `numbers` (or there is none): what a reader would otherwise take for the table's last change.
   */
  fields: EntryChanges | null;
  /** The entry that first published the class: the oldest that names it. */
  published: SourceEntry | null;
}

/**
 * What changed in `grainId`, of the entries of crop year `year` (every year when null). Only the
 * entries that list their changes can say which kind they made; the ones made before changes
 * were recorded (`changes` null) count as the class's publication alone.
 */
export function classChanges(entries: readonly SourceEntry[], grainId: string, year: string | null): ClassChanges {
  const naming = entries.filter((e) => e.grain_ids_affected.includes(grainId)).sort(changelogOrder);
  let numbers: EntryChanges | null = null;
  let fields: EntryChanges | null = null;
  for (const entry of naming) {
    if (!entry.changes || (year !== null && entry.crop_year !== year)) continue;
    const changes = entry.changes.filter((c) => c.grain_id === grainId);
    if (changes.length === 0) continue;
    if (changes.some(printsNumber)) {
      numbers = { entry, changes };
      break;
    }
    fields ??= { entry, changes };
  }
  return { numbers, fields, published: naming.at(-1) ?? null };
}
