// Checks the dataset as editors wrote it and turns it into published records. Every problem is
// reported with file, line, column and field, all in one run; records come back only when there
// are none (docs/dataset-editing.md: nothing is published while any error exists).

import type { PastYears } from '../load/covered.ts';
import type { DatasetError } from '../load/dataset-error.ts';
import { errorAt, type LoadedDataset, type LoadedFile, type Path } from '../load/load.ts';
import type { CompiledRecord, SourceEntry, SourceGrain } from '../types.ts';
import { cropYearsOf, recordYearProblem } from './crop-years.ts';
import { grainRecord } from './grain-record.ts';
import type { SchemaChecks } from './schema-errors.ts';

export interface Dataset {
  grains: CompiledRecord[];
  changelog: SourceEntry[];
  past?: PastYears /* each class's last record of every past crop year (dataset/covered/past/) */;
}

/** One grain file on its own: schema, cells and cross-checks. */
export function validateGrainFile(
  file: LoadedFile,
  checks: SchemaChecks,
): { errors: DatasetError[]; record?: CompiledRecord } {
  const { errors, onlyUnknownFields } = checks.grain(file);
  // An unknown (misspelt) field is ignored by what follows, so it must not hide the file's other
  // errors: the editor gets them all in one run (docs/dataset-editing.md). Any other schema error
  // leaves values the cross-checks cannot read.
  if (!onlyUnknownFields) return { errors };
  // The record is returned even with cross-check errors, so check-authority can compare it.
  const { record, problems } = grainRecord(file, file.data as SourceGrain);
  return { errors: [...errors, ...problems.map((p) => errorAt(file, p.at, p.message))], record };
}

/** `checks`: the schemas compiled (schema-errors.ts), made once by the caller for all its validations. */
export function validateDataset(
  ds: LoadedDataset,
  checks: SchemaChecks,
): { errors: DatasetError[]; dataset?: Dataset } {
  const errors: DatasetError[] = [];
  const at = (file: LoadedFile, path: Path, message: string) => errors.push(errorAt(file, path, message));
  errors.push(...checks.index(ds.index).errors);
  const ids: string[] = (ds.index.data as { grains?: string[] } | undefined)?.grains ?? [];
  for (const [i, id] of ids.entries())
    if (ids.indexOf(id) !== i) at(ds.index, ['grains', i], `"${id}" is listed twice`);
  const grains: CompiledRecord[] = [];
  for (const file of ds.grains) {
    const { errors: e, record } = validateGrainFile(file, checks);
    errors.push(...e);
    if (record && !e.length) {
      const expected = file.file.replace(/^.*\//, '').replace(/\.yaml$/, '');
      if (record.grain_id !== expected)
        at(file, ['grain_id'], `is "${record.grain_id}" but the file is named ${expected}.yaml`);
      if (recordYearProblem(record)) at(file, ['effective_crop_year'], recordYearProblem(record)!);
      record.crop_years = cropYearsOf(record, ds.coverage);
      grains.push(record);
    }
  }

  const clErrors = checks.changelog(ds.changelog).errors;
  errors.push(...clErrors);
  const changelog: SourceEntry[] = clErrors.length ? [] : (ds.changelog.data as { entries: SourceEntry[] }).entries;
  const seen = new Set<string>();
  changelog.forEach((c, i) => {
    if (seen.has(c.id)) at(ds.changelog, ['entries', i, 'id'], `the id "${c.id}" is used twice`);
    seen.add(c.id);
    c.grain_ids_affected.forEach((g, k) => {
      // A class an entry removed is no longer in index.yaml, but what the changelog covers keeps it.
      if (!ids.includes(g) && !ds.coverage?.records.has(g))
        at(ds.changelog, ['entries', i, 'grain_ids_affected', k], `"${g}" is not a grain in index.yaml`);
    });
    c.changes?.forEach((change, k) => {
      if (!c.grain_ids_affected.includes(change.grain_id))
        at(ds.changelog, ['entries', i, 'changes', k, 'grain_id'], `"${change.grain_id}" is not in grain_ids_affected`);
    });
    if (Number.isNaN(Date.parse(c.created_at)) || Number.isNaN(Date.parse(c.effective_date))) {
      at(ds.changelog, ['entries', i], 'a date that does not exist');
    }
  });

  errors.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column);
  return errors.length ? { errors } : { errors, dataset: { grains, changelog, past: ds.coverage?.past } };
}

export const formatError = (e: DatasetError) => `${e.file}:${e.line}:${e.column}: ${e.field}: ${e.message}`;
