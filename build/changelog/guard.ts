// The build's guard (docs/dataset-editing.md, "Every change has an entry"): a published record that
// differs from what the changelog covers, an edited or deleted published entry, or an entry that
// was not drafted by `npm run changelog` stops the build, each said as an error at its file and line.
// It compares what clients receive (the published record), so a change the code makes to every
// record is caught as surely as an editor's.

import { publishedJson } from '../compile/published.ts';
import { COVERED_DIR, type Coverage, ENTRIES_FILE, type RecordJson } from '../load/covered.ts';
import { type DatasetError, datasetError } from '../load/dataset-error.ts';
import { errorAt, type LoadedDataset, type LoadedFile, type Path } from '../load/load.ts';
import type { Change, SourceEntry } from '../types.ts';
import { entryYearProblems } from '../validate/crop-years.ts';
import type { Dataset } from '../validate/validate.ts';
import { entryDigest } from './coverage.ts';
import { describeChange, diffRecords } from './diff.ts';
import { correctsTable, cropYearEnd } from './printed.ts';

export interface Unlogged {
  grain_id: string;
  changes: Change[];
}

/** Changes listed one by one per class before the rest are counted: a code change can touch thousands. */
const LISTED = 12;
export const DRAFT_COMMAND = 'npm run changelog -- --summary "<what changed, in one sentence>"';

/**
 * Every class whose published record differs from the one covered, with its changes. `fallback`
 * names old values of a class the changelog has never covered (a live build's records).
 */
export function unloggedChanges(dataset: Dataset, coverage: Coverage, fallback?: Map<string, RecordJson>): Unlogged[] {
  const before = (id: string) => {
    const covered = coverage.records.get(id);
    return covered ? covered.record : (fallback?.get(id) ?? null);
  };
  return changedRecords(dataset, coverage.records.keys(), before);
}

/**
 * Every class of the dataset, or of `others` (classes it may have dropped), whose published record
 * differs from `before`'s, with its changes; `named` passes over a class an entry names.
 */
export function changedRecords(
  dataset: Dataset,
  others: Iterable<string>,
  before: (id: string) => RecordJson | null,
  named: (id: string) => boolean = () => false,
): Unlogged[] {
  const out: Unlogged[] = [];
  const now = new Map(dataset.grains.map((g) => [g.grain_id, publishedJson(g)]));
  for (const id of new Set([...now.keys(), ...others])) {
    const [from, to] = [before(id), now.get(id) ?? null];
    if (named(id) || JSON.stringify(from) === JSON.stringify(to)) continue;
    const changes = diffRecords(id, from, to);
    // Same values in another order is still other bytes to a client that compares them.
    out.push({ grain_id: id, changes: changes.length ? changes : [reordered(id)] });
  }
  return out;
}

const reordered = (grain_id: string): Change => ({
  grain_id,
  factor_id: null,
  grade: null,
  field: '(field order)',
  from: null,
  to: null,
});

export function guardErrors(
  loaded: LoadedDataset,
  dataset: Dataset,
  coverage: Coverage | null,
): { errors: DatasetError[]; unlogged: Unlogged[] } {
  if (!coverage) return { errors: entryErrors(loaded, dataset, coverage), unlogged: [] };
  const errors = entryErrors(loaded, dataset, coverage);
  const unlogged = unloggedChanges(dataset, coverage);
  const files = new Map(loaded.grains.map((f) => [(f.data as { grain_id?: string } | undefined)?.grain_id, f]));
  for (const u of unlogged) {
    const file = files.get(u.grain_id) ?? loaded.index;
    const at = (path: Path, message: string) => errors.push(errorAt(file, path, message));
    for (const c of u.changes.slice(0, LISTED))
      at(sourcePath(file, c), `${describeChange(c)}, not named by a changelog entry`);
    if (u.changes.length > LISTED) {
      at([], `and ${u.changes.length - LISTED} more changes to ${u.grain_id} not named by a changelog entry`);
    }
  }
  return { errors, unlogged };
}

/** A published entry deleted or edited, an entry not drafted by npm run changelog, a covered file that lies. */
export function entryErrors(loaded: LoadedDataset, dataset: Dataset, coverage: Coverage | null): DatasetError[] {
  const errors: DatasetError[] = [];
  const at = (file: LoadedFile, path: Path, message: string) => errors.push(errorAt(file, path, message));
  if (!coverage) {
    at(
      loaded.changelog,
      [],
      `${COVERED_DIR}/ is missing: it records what the changelog covers (restore it from version control; ` +
        'a dataset that never had one starts it with npm run changelog -- --baseline)',
    );
    return errors;
  }

  const recorded = new Map(coverage.entries.map((e) => [e.id, e.sha256]));
  const index = new Map(dataset.changelog.map((e, i) => [e.id, i]));
  for (const { id, sha256 } of coverage.entries) {
    const i = index.get(id);
    if (i === undefined) {
      at(loaded.changelog, ['entries'], `the published entry "${id}" was deleted: entries are append-only; restore it`);
    } else if (entryDigest(dataset.changelog[i]!) !== sha256) {
      at(
        loaded.changelog,
        ['entries', i],
        `the published entry "${id}" was edited: entries are append-only; ` +
          'restore it and make the correction a new entry',
      );
    }
  }
  for (const [i, e] of dataset.changelog.entries()) {
    if (!recorded.has(e.id)) {
      at(
        loaded.changelog,
        ['entries', i],
        `the entry "${e.id}" is not recorded in ${COVERED_DIR}/${ENTRIES_FILE}: entries are drafted by npm run ` +
          `changelog, which records what each covers; remove it and run ${DRAFT_COMMAND}`,
      );
    }
  }
  const current = new Map(dataset.grains.map((g) => [g.grain_id, g]));
  const coveredYear = (entry: string, id: string) => {
    const c = coverage.records.get(id);
    return c?.covered_by === entry ? (c.record?.effective_crop_year as string | undefined) : undefined;
  };
  for (const [i, e] of dataset.changelog.entries()) {
    for (const problem of entryYearProblems(e, current, (id) => coveredYear(e.id, id))) {
      at(loaded.changelog, ['entries', i, 'crop_year'], `${problem}: an entry's crop year is its records'`);
    }
    const problem = correctionProblem(e);
    if (problem) at(loaded.changelog, ['entries', i, e.correction ? 'correction' : 'effective_date'], problem);
  }
  for (const [id, c] of coverage.records) {
    const entry = dataset.changelog.find((e) => e.id === c.covered_by);
    if (!entry?.grain_ids_affected.includes(id)) {
      const message = `"${c.covered_by}" is not a changelog entry naming ${id}; restore the file from version control`;
      errors.push(datasetError(`${COVERED_DIR}/${id}.json`, 'covered_by', message));
    }
  }
  return errors;
}

/**
 * Why an entry is not marked as what it is: one that rewrites a finished crop year's printed table
 * is a correction and says so; one marked a correction is one (docs/dataset-editing.md, Crop years).
 */
function correctionProblem(e: SourceEntry): string | null {
  const corrects = correctsTable(e);
  if (corrects === (e.correction === true)) return null;
  return corrects
    ? `changes what the ${e.crop_year} table prints after that crop year ended (${cropYearEnd(e.crop_year)}) ` +
        'and is not marked as a correction: remove it and draft it again with npm run changelog -- --correction'
    : 'is marked as a correction, but it changes no printed number or label of a crop year that had ended: ' +
        'remove it and draft it again without --correction';
}

/**
 * The entries dated after `today` (YYYY-MM-DD, the build's clock): no page speaks of a change that
 * has not happened (docs/dataset-editing.md, Every change has an entry).
 */
export function futureEntryErrors(loaded: LoadedDataset, dataset: Dataset, today: string): DatasetError[] {
  return dataset.changelog.flatMap((e, i) =>
    e.effective_date > today
      ? [
          errorAt(
            loaded.changelog,
            ['entries', i, 'effective_date'],
            `${e.effective_date} is after today (${today}): nothing is published about a change before it ` +
              'happens; build on that day, or remove the entry and draft it dated today',
          ),
        ]
      : [],
  );
}

/** Where a change stands in the editor's file: its cell, its factor, or its field. */
function sourcePath(file: LoadedFile, c: Change): Path {
  const src = file.data as { grades?: string[]; factor_groups?: { factors?: { factor_id?: string }[] }[] } | undefined;
  if (!src || c.factor_id === null) return c.field && !c.field.startsWith('(') ? [c.field] : [];
  for (const [gi, g] of (src.factor_groups ?? []).entries()) {
    const fi = (g.factors ?? []).findIndex((f) => f.factor_id === c.factor_id);
    if (fi < 0) continue;
    const factor: Path = ['factor_groups', gi, 'factors', fi];
    const k = c.grade === null ? -1 : (src.grades ?? []).indexOf(c.grade);
    return k >= 0 ? [...factor, 'thresholds', k] : factor;
  }
  return [];
}
