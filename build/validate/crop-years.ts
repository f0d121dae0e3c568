// Crop years (docs/dataset-editing.md, "Crop years"): a crop year runs from 1 August to 31 July.
// A record's effective_crop_year is the crop year of its last_scraped (when its table was last
// verified against the authority's page); an entry's crop_year is its records'. These are the
// checks the build makes of both, and the years each class was published for.
import type { PastYears, RecordJson } from '../load/covered.ts';
import type { CompiledRecord, SourceEntry } from '../types.ts';

/** The crop year a UTC timestamp falls in: 2026-07-31T… → 2025/26, 2026-08-01T… → 2026/27. */
export function cropYearOf(timestamp: string): string {
  const year = Number(timestamp.slice(0, 4));
  const start = Number(timestamp.slice(5, 7)) >= 8 ? year : year - 1;
  return `${start}/${String((start + 1) % 100).padStart(2, '0')}`;
}

/** A crop year as a file name part: 2025/26 → 2025-26. */
export const yearSlug = (year: string) => year.replace('/', '-');

/** Why a record's crop year is not its last_scraped's, or null when it is. */
export function recordYearProblem(r: Pick<CompiledRecord, 'effective_crop_year' | 'last_scraped'>): string | null {
  const derived = cropYearOf(r.last_scraped);
  if (r.effective_crop_year === derived) return null;
  return (
    `is ${r.effective_crop_year} but last_scraped ${r.last_scraped} falls in crop year ${derived} ` +
    `(1 August to 31 July): set it to ${derived}, as npm run import does from the copy it reads`
  );
}

/** Every crop year a class was published for, oldest first: its past years and its current one. */
export function yearsOf(grainId: string, current: string | undefined, past: PastYears | undefined): string[] {
  const years = new Set(past?.get(grainId)?.keys());
  if (current) years.add(current);
  return [...years].sort();
}

/**
 * A record's crop_years (docs/contract.md, Crop years): the years its class was published for, and
 * its own. A record moved to a new year keeps the year its covered record stands at, which the
 * entry that names the move keeps as a past year (npm run changelog): the field says now what the
 * build will publish.
 */
export function cropYearsOf(
  record: Pick<CompiledRecord, 'grain_id' | 'effective_crop_year'>,
  coverage: { past: PastYears; records: ReadonlyMap<string, { record: RecordJson | null }> } | null,
): string[] {
  const years = yearsOf(record.grain_id, record.effective_crop_year, coverage?.past);
  const covered = coverage?.records.get(record.grain_id)?.record?.effective_crop_year;
  if (typeof covered !== 'string' || years.includes(covered) || covered > record.effective_crop_year) return years;
  return [...years, covered].sort();
}

/**
 * An entry drafted by npm run changelog (one with `changes`) names records of its own crop year:
 * each class it names was published for that year, and where it is the newest entry naming a class,
 * the class's record is of that year. Entries older than the check (no `changes`) stay as published.
 */
export function entryYearProblems(
  entry: SourceEntry,
  current: Map<string, CompiledRecord>,
  coveredYear: (grainId: string) => string | undefined,
): string[] {
  if (!entry.changes) return [];
  const problems: string[] = [];
  for (const id of entry.grain_ids_affected) {
    const record = current.get(id);
    if (!record) continue; // a class the entry removed
    const years = record.crop_years;
    const covered = coveredYear(id);
    if (covered !== undefined && covered !== entry.crop_year) {
      problems.push(`crop_year is ${entry.crop_year} but ${id}'s record it covers is of ${covered}`);
    } else if (!years.includes(entry.crop_year)) {
      problems.push(`crop_year is ${entry.crop_year} but ${id} was published for ${years.join(', ')} only`);
    }
  }
  return problems;
}
