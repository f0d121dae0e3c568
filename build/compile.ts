// Pure: a validated dataset → the body of every response the data endpoints can give (the list,
// each record, the changelog for every filter and limit, the OpenAPI document), keyed by the
// canonical request (path plus canonical query). The gateway only looks these up.
import { publishedEntry, publishedRecord } from './changelog/coverage.ts';
import { yearsOf } from './crop-years.ts';
import { buildOpenApi } from './openapi.ts';
import {
  CHANGELOG_MAX_LIMIT,
  changelogKey,
  GRAIN_LIST_KEY,
  grainKey,
  grainYearKey,
  ROUTES,
  SCHEMA_VERSION,
} from './site-format.ts';
import type { GrainRecord, GrainSummary, SourceEntry } from './types.ts';
import type { Dataset } from './validate.ts';

export const summaryOf = (g: GrainRecord): GrainSummary => ({
  grain_id: g.grain_id,
  grain_name: g.grain_name,
  kind: g.kind,
  region: g.region,
  use_class: g.use_class,
  effective_crop_year: g.effective_crop_year,
  coverage_status: g.coverage_status,
  grades: g.grades,
});

/** docs/contract.md: effective_date descending, then created_at descending, then id ascending. */
type Ordered = Pick<SourceEntry, 'effective_date' | 'created_at' | 'id'>;
export const changelogOrder = (a: Ordered, b: Ordered) =>
  (a.effective_date < b.effective_date ? 1 : a.effective_date > b.effective_date ? -1 : 0) ||
  (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0) ||
  (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

const json = (v: unknown) => JSON.stringify(v);

export function compileBodies(ds: Dataset): Map<string, string> {
  const bodies = new Map<string, string>();
  bodies.set(
    GRAIN_LIST_KEY,
    json({ schema_version: SCHEMA_VERSION, count: ds.grains.length, grains: ds.grains.map(summaryOf) }),
  );
  for (const g of ds.grains) {
    const body = json(publishedRecord(g));
    bodies.set(grainKey(g.grain_id), body);
    // Each crop year the class was published for: its past years' last records, and this one's.
    for (const year of yearsOf(g.grain_id, g.effective_crop_year, ds.past)) {
      const past = year === g.effective_crop_year ? undefined : ds.past?.get(g.grain_id)?.get(year);
      bodies.set(grainYearKey(g.grain_id, year), past ? json(past) : body);
    }
  }

  const sorted = ds.changelog.map(publishedEntry).sort(changelogOrder);
  const filters: (string | null)[] = [null, ...ds.grains.map((g) => g.grain_id)];
  for (const filter of filters) {
    const entries = filter ? sorted.filter((e) => e.grain_ids_affected.includes(filter)) : sorted;
    const serialised = entries.slice(0, CHANGELOG_MAX_LIMIT).map(json);
    for (let limit = 1; limit <= CHANGELOG_MAX_LIMIT; limit++) {
      const page = serialised.slice(0, limit);
      bodies.set(
        changelogKey(filter, limit),
        `{"schema_version":"${SCHEMA_VERSION}","count":${page.length},"entries":[${page.join(',')}]}`,
      );
    }
  }
  bodies.set(ROUTES.openapi.path, json(buildOpenApi(ds)));
  return bodies;
}
