// The build a site serves now, as far as the guard needs it: each record as published and the ids
// of the changelog entries it publishes. A record that would change from the live one must be named
// by an entry the live build does not have yet (docs/dataset-editing.md, "Every change has an entry").
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RecordJson } from '../load/covered.ts';
import { plainBody } from '../plain-body.ts';
import { livePointer } from '../publish/publish.ts';
import { CHANGELOG_MAX_LIMIT, changelogKey, grainKey, readBuild, routeOf, yearOfKey } from '../site-format.ts';
import type { Dataset } from '../validate/validate.ts';
import { diffRecords } from './diff.ts';
import { changedRecords, type Unlogged } from './guard.ts';

export interface LiveBuild {
  build_id: string;
  records: Map<string, RecordJson>;
  entryIds: Set<string>;
  /** Every body published under a record's crop-year key (grainYearKey), by that key. */
  years: Map<string, RecordJson>;
}

/** null where nothing is published (or the live build cannot be read: the publish replaces it). */
export function readLiveBuild(siteDir: string): LiveBuild | null {
  const pointer = livePointer(siteDir);
  if (!pointer) return null;
  try {
    const read = (path: string) => readFileSync(join(siteDir, path));
    const build = readBuild((path) => read(path).toString('utf8'), pointer);
    const { manifest } = build;
    const body = (route: string) => {
      const bytes = plainBody(build, route, read);
      return bytes === null ? null : JSON.parse(bytes.toString('utf8'));
    };
    const records = new Map(manifest.grain_ids.map((id) => [id, body(grainKey(id)) as RecordJson]));
    // The newest page holds every entry a recent build published; an older one is not a new entry.
    const changelog = body(changelogKey(null, CHANGELOG_MAX_LIMIT)) as { entries: { id: string }[] } | null;
    const years = new Map(
      Object.keys(manifest.routes)
        .filter((k) => yearOfKey(k) !== null && routeOf(k) === 'grain') // not the tables' pages
        .map((k) => [k, body(k) as RecordJson]),
    );
    return { build_id: manifest.build_id, records, entryIds: new Set(changelog?.entries.map((e) => e.id)), years };
  } catch {
    return null;
  }
}

/** Records that differ from the live build's with no entry the live build lacks naming their class. */
export function unloggedAgainstLive(dataset: Dataset, live: LiveBuild): Unlogged[] {
  const named = new Set(dataset.changelog.filter((e) => !live.entryIds.has(e.id)).flatMap((e) => e.grain_ids_affected));
  const before = (id: string) => live.records.get(id) ?? null;
  const out = changedRecords(dataset, live.records.keys(), before, (id) => named.has(id));
  // A past crop year's record the live build publishes is never changed or dropped: covered/past/
  // is written only by npm run changelog, when a record leaves its year (docs/contract.md, Crop years).
  for (const g of dataset.grains) {
    const liveYear = live.records.get(g.grain_id)?.effective_crop_year;
    for (const [key, before] of live.years) {
      const { base, year } = yearOfKey(key)!;
      if (base !== grainKey(g.grain_id) || year === liveYear) continue;
      const after = year === g.effective_crop_year ? null : (dataset.past?.get(g.grain_id)?.get(year) ?? null);
      if (JSON.stringify(before) === JSON.stringify(after)) continue;
      out.push({
        grain_id: `${g.grain_id} of ${year} (dataset/covered/past/)`,
        changes: diffRecords(g.grain_id, before, after),
      });
    }
  }
  return out;
}
