// What the changelog covers, written into the dataset by `npm run changelog` (read by
// load/covered.ts, which says the folder's layout): the files' text, and each entry's digest.
import { createHash } from 'node:crypto';
import { publishedEntry } from '../compile/published.ts';
import { type Coverage, ENTRIES_FILE, PAST_DIR } from '../load/covered.ts';
import type { SourceEntry } from '../types.ts';
import { yearSlug } from '../validate/crop-years.ts';

const GENERATED = 'Written by npm run changelog; do not edit (docs/dataset-editing.md).';

/**
 * An entry's digest, as covered/ records it: of the entry as published, `correction` left out where
 * it is false, so the entries recorded before the field keep their digests (they are append-only).
 */
export function entryDigest(e: SourceEntry): string {
  const { correction, ...published } = publishedEntry(e);
  return createHash('sha256')
    .update(JSON.stringify(correction ? { ...published, correction } : published))
    .digest('hex');
}

/** The folder's files as text: deterministic, one line per field, so a review reads the diff. */
export function coverageFiles(coverage: Coverage): Map<string, string> {
  const text = (v: unknown) => `${JSON.stringify(v, null, 1)}\n`;
  const files = new Map<string, string>([[ENTRIES_FILE, text({ generated: GENERATED, entries: coverage.entries })]]);
  for (const id of [...coverage.records.keys()].sort()) {
    files.set(`${id}.json`, text({ generated: GENERATED, ...coverage.records.get(id) }));
  }
  for (const id of [...coverage.past.keys()].sort()) {
    for (const [year, record] of [...coverage.past.get(id)!].sort(([a], [b]) => (a < b ? -1 : 1))) {
      files.set(`${PAST_DIR}/${id}.${yearSlug(year)}.json`, text({ generated: GENERATED, crop_year: year, record }));
    }
  }
  return files;
}
