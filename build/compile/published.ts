// A record and a changelog entry exactly as the API publishes them: the shapes the compiler writes
// (compile.ts) and the changelog compares and covers (changelog/), written once.
import type { RecordJson } from '../load/covered.ts';
import { SCHEMA_VERSION } from '../site-format.ts';
import type { ChangelogEntry, CompiledRecord, SourceEntry } from '../types.ts';

/** A record exactly as GET /api/grains/{grain_id} publishes it. */
export const publishedRecord = (g: CompiledRecord) => ({ schema_version: SCHEMA_VERSION, ...g });

/** The published record as JSON gives it back (a stored body, covered/), to compare with one read from a file. */
export const publishedJson = (g: CompiledRecord): RecordJson => JSON.parse(JSON.stringify(publishedRecord(g)));

/** An entry exactly as GET /api/changelog publishes it: fields in the schema's order. */
export const publishedEntry = (e: SourceEntry): ChangelogEntry => ({
  id: e.id,
  crop_year: e.crop_year,
  effective_date: e.effective_date,
  grain_ids_affected: e.grain_ids_affected,
  summary: e.summary,
  created_at: e.created_at,
  changes: e.changes ?? null,
  correction: e.correction === true,
});
