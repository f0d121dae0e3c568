// Pure: a validated dataset → the body of every response the data endpoints can give (the list,
// each record, the changelog for every filter and limit, the OpenAPI document), keyed by the
// canonical request (path plus canonical query). The gateway only looks these up.

import { summaryOf } from '../grain-summary.ts';
import type { RecordJson } from '../load/covered.ts';
import {
  CHANGELOG_MAX_LIMIT,
  changelogKey,
  GRAIN_LIST_KEY,
  grainKey,
  grainYearKey,
  ROUTES,
  SCHEMA_VERSION,
  snapshotKey,
} from '../site-format.ts';
import type { SourceEntry } from '../types.ts';
import { yearsOf } from '../validate/crop-years.ts';
import type { Dataset } from '../validate/validate.ts';
import type { OpenApi } from './openapi.ts';
import { publishedEntry, publishedRecord } from './published.ts';

/** docs/contract.md: effective_date descending, then created_at descending, then id ascending. */
type Ordered = Pick<SourceEntry, 'effective_date' | 'created_at' | 'id'>;
export const changelogOrder = (a: Ordered, b: Ordered) =>
  (a.effective_date < b.effective_date ? 1 : a.effective_date > b.effective_date ? -1 : 0) ||
  (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0) ||
  (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

const json = (v: unknown) => JSON.stringify(v);
const shows = (e: { grain_ids_affected: string[] }, grainId: string) => e.grain_ids_affected.includes(grainId);

/**
 * A past year's record as it stood, with the crop_years it had then: the class's years up to its own
 * (docs/contract.md, Crop years). Kept in place after effective_crop_year, where every record has it.
 */
function asOfYear(record: RecordJson, years: string[]): RecordJson {
  const year = record.effective_crop_year as string;
  const own = years.filter((y) => y <= year);
  return Object.fromEntries(
    Object.entries(record).flatMap(([k, v]): [string, unknown][] =>
      k === 'crop_years'
        ? []
        : k === 'effective_crop_year'
          ? [
              [k, v],
              ['crop_years', own],
            ]
          : [[k, v]],
    ),
  ) as RecordJson;
}

/** A body and every canonical key it answers: the one thing compile gives emit, a body at a time. */
export type KeyedBody = readonly [keys: readonly string[], body: string | Buffer];

/**
 * `openapi`: the document, built once per build (build-site.ts) for this body and the docs page.
 * The bodies are given one at a time, each with every key it answers, and none is held once given:
 * the build's memory follows its largest body, not the sum of them (docs/performance.md, Growth).
 */
export function* compileBodies(ds: Dataset, openapi: OpenApi): Generator<KeyedBody> {
  yield [
    [GRAIN_LIST_KEY],
    json({ schema_version: SCHEMA_VERSION, count: ds.grains.length, grains: ds.grains.map(summaryOf) }),
  ];
  // The snapshot's records are these very bodies, in the list's order: a sync writes each back byte
  // for byte (docs/sync.md). Crop year → the record bodies of the classes published for it.
  const current: string[] = [];
  const ofYear = new Map<string, string[]>();
  for (const g of ds.grains) {
    const body = json(publishedRecord(g));
    const keys = [grainKey(g.grain_id)];
    current.push(body);
    // Each crop year the class was published for: its past years' last records, and this one's.
    const years = yearsOf(g.grain_id, g.effective_crop_year, ds.past);
    for (const year of years) {
      const past = year === g.effective_crop_year ? undefined : ds.past?.get(g.grain_id)?.get(year);
      const yearBody = past ? json(asOfYear(past, years)) : body;
      if (past) yield [[grainYearKey(g.grain_id, year)], yearBody];
      else keys.push(grainYearKey(g.grain_id, year));
      ofYear.set(year, [...(ofYear.get(year) ?? []), yearBody]);
    }
    yield [keys, body];
  }

  const sorted = ds.changelog.map(publishedEntry).sort(changelogOrder);
  // each entry serialised once, whatever the filters that show it (an entry that adds classes
  // carries their records, and is shown under each of them)
  const serialisedAll = sorted.map(json);
  // A crop year's snapshot holds that year's entries and those before it (docs/contract.md, The
  // snapshot): its size grows with the data, not with years × entries, and a new year's entries
  // leave a past year's snapshot, and so its ETag, as they were.
  const upTo = (year: string | null) =>
    (year === null ? serialisedAll : serialisedAll.filter((_, i) => sorted[i]!.crop_year <= year)).join(',');
  const snapshot = (year: string | null, records: string[]) =>
    `{"schema_version":"${SCHEMA_VERSION}","crop_year":${json(year)},"count":${records.length},` +
    `"grains":[${records.join(',')}],"changelog":[${upTo(year)}]}`;
  yield [[snapshotKey(null)], snapshot(null, current)];
  for (const [year, records] of ofYear) yield [[snapshotKey(year)], snapshot(year, records)];

  // The pages are put together from each entry's bytes, encoded once: a page is then copies of
  // bytes, not a string made and encoded again for each of its limits.
  const entryBytes = serialisedAll.map((e) => Buffer.from(e, 'utf8'));
  const comma = Buffer.from(',');
  const filters: (string | null)[] = [null, ...ds.grains.map((g) => g.grain_id)];
  for (const filter of filters) {
    const shown = (filter ? entryBytes.filter((_, i) => shows(sorted[i]!, filter)) : entryBytes).slice(
      0,
      CHANGELOG_MAX_LIMIT,
    );
    // Past the filter's last entry every limit gives the same page: it is made once and named by
    // each of those limits, so the pages made grow with the entries, not with entries × limits
    // (docs/performance.md, Growth).
    const page = (n: number) =>
      Buffer.concat([
        Buffer.from(`{"schema_version":"${SCHEMA_VERSION}","count":${n},"entries":[`),
        ...shown.slice(0, n).flatMap((e, i) => (i ? [comma, e] : [e])),
        Buffer.from(']}'),
      ]);
    const last = Math.max(1, shown.length);
    for (let limit = 1; limit < last; limit++) yield [[changelogKey(filter, limit)], page(limit)];
    const rest = Array.from({ length: CHANGELOG_MAX_LIMIT - last + 1 }, (_, i) => changelogKey(filter, last + i));
    yield [rest, page(shown.length)];
  }
  yield [[ROUTES.openapi.path], json(openapi)];
}
