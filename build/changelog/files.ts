// Writes what `npm run changelog` drafted into the dataset: the entries appended to changelog.yaml
// (the editor's text and comments kept as they are) and the covered/ folder. Every file is written
// beside and renamed into place, and only once all of them are ready, so a refused run changes nothing.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { replaceFiles } from '../atomic-write.mjs';
import type { RecordJson } from '../load/covered.ts';
import { COVERED_DIR, type Coverage, PAST_DIR } from '../load/covered.ts';
import type { DatasetError } from '../load/dataset-error.ts';
import { loadDataset } from '../load/load.ts';
import type { SourceEntry } from '../types.ts';
import { createSchemaChecks } from '../validate/schema-errors.ts';
import { validateDataset } from '../validate/validate.ts';
import { coverageFiles } from './coverage.ts';
import { describeChange } from './diff.ts';
import { baselineCoverage, type DraftOptions, draftEntries, entriesYaml, isRecheck } from './draft-entries.ts';
import { entryErrors, unloggedChanges } from './guard.ts';
import { correctionRefusal } from './printed.ts';

/** changelog.yaml with the entries appended, checked to read back as the old entries and the new. */
function appendedChangelog(root: string, entries: SourceEntry[]): string {
  const text = readFileSync(join(root, 'changelog.yaml'), 'utf8');
  const next = `${text.endsWith('\n') ? text : `${text}\n`}${entriesYaml(entries)}`;
  const before = (parse(text) as { entries: unknown[] }).entries;
  const after = (parse(next) as { entries?: unknown[] } | null)?.entries;
  if (JSON.stringify(after) !== JSON.stringify([...before, ...entries])) {
    throw new Error('changelog.yaml does not end with its entries list, so the new entry cannot be appended to it');
  }
  return next;
}

/** Writes every file beside its place, then renames them all in: the changelog last. */
function writeDatasetFiles(root: string, coverage: Coverage, changelog?: string) {
  const dir = join(root, COVERED_DIR);
  mkdirSync(join(dir, PAST_DIR), { recursive: true });
  const files = [...coverageFiles(coverage)].map(([name, text]) => [join(dir, name), text] as const);
  if (changelog !== undefined) files.push([join(root, 'changelog.yaml'), changelog]);
  replaceFiles(files);
}

/**
 * Starts covered/ on a valid dataset that has none: each class as it is now, covered by the newest
 * entry naming it. Returns why it could not, or null.
 */
export function startCoverage(root: string): string | null {
  const loaded = loadDataset(root);
  if (loaded.coverage) return `${COVERED_DIR}/ exists already: the changelog's coverage is started once`;
  const { errors, dataset } = validateDataset(loaded, createSchemaChecks());
  if (!dataset) return `the dataset has ${errors.length} error(s); npm run build lists them`;
  const { coverage, uncovered } = baselineCoverage(dataset);
  if (!coverage) return `no changelog entry names ${uncovered.join(', ')}: add the entry that published it first`;
  writeDatasetFiles(root, coverage);
  return null;
}

export type DraftResult = { ok: true; entries: SourceEntry[] } | { ok: false; reason: string; errors: DatasetError[] };

/**
 * `npm run changelog`: drafts the entries naming every record changed since the changelog last
 * covered it and writes them with what the changelog then covers; or says why it wrote nothing.
 * `oldRecords` (a live build's) names old values of a class the changelog has never covered.
 */
export function draftChangelog(
  root: string,
  opts: DraftOptions & { oldRecords?: Map<string, RecordJson> },
): DraftResult {
  const loaded = loadDataset(root);
  const { errors, dataset } = validateDataset(loaded, createSchemaChecks());
  if (!dataset) return { ok: false, reason: `the dataset has ${errors.length} error(s); fix them first`, errors };
  if (!loaded.coverage) {
    return { ok: false, reason: `${COVERED_DIR}/ is missing: restore it, or start it once with --baseline`, errors };
  }
  const broken = [...loaded.coverageErrors, ...entryErrors(loaded, dataset, loaded.coverage)];
  if (broken.length) return { ok: false, reason: 'the changelog is not as published; fix that first', errors: broken };
  const unlogged = unloggedChanges(dataset, loaded.coverage, opts.oldRecords);
  if (!unlogged.length) {
    return { ok: false, reason: 'nothing changed: every published record is as the changelog covers it', errors };
  }
  if (opts.summary === undefined && !unlogged.every(isRecheck)) {
    const changed = unlogged.filter((u) => !isRecheck(u)).map((u) => u.grain_id);
    return { ok: false, reason: `--summary is required: ${changed.join(', ')} changed beyond a re-check`, errors };
  }
  const today = opts.now.toISOString().slice(0, 10);
  if (opts.effectiveDate > today) {
    const reason =
      `the effective date ${opts.effectiveDate} is after today (${today}): an entry says what has happened, and ` +
      'the build refuses one dated later; draft it on the day the change takes effect';
    return { ok: false, reason, errors };
  }
  const draft = draftEntries(dataset, loaded.coverage, unlogged, opts);
  const refused = correctionRefusal(draft.entries, opts.correction === true, describeChange);
  if (refused) return { ok: false, reason: refused, errors };
  let changelog: string;
  try {
    changelog = appendedChangelog(root, draft.entries);
  } catch (err) {
    return { ok: false, reason: (err as Error).message, errors };
  }
  writeDatasetFiles(root, draft.coverage, changelog);
  return { ok: true, entries: draft.entries };
}
