// Pure: a validated dataset → the body of every response the data endpoints can give, keyed by
// the canonical request (path plus canonical query). The gateway only looks these up.
import { readFileSync } from 'node:fs';
import { bundleClient } from './bundle.ts';
import { publishedEntry, publishedRecord } from './changelog/coverage.ts';
import { buildOpenApi } from './openapi.ts';
import { type Example, renderDocs } from './pages/docs.ts';
import { renderGradePage } from './pages/grade.ts';
import { renderHome } from './pages/home.ts';
import { renderRegisterError, renderRegistered } from './pages/registration-pages.ts';
import {
  CHANGELOG_MAX_LIMIT,
  changelogKey,
  GRAIN_LIST_KEY,
  grainKey,
  ORIGIN_PLACEHOLDER,
  PAGE_TEMPLATES,
} from './site-format.ts';
import { type ChangelogEntry, type GrainRecord, type GrainSummary, SCHEMA_VERSION, type SourceEntry } from './types.ts';
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

/** decisions.md §4: effective_date descending, then created_at descending, then id ascending. */
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
  for (const g of ds.grains) bodies.set(grainKey(g.grain_id), json(publishedRecord(g)));

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
  const openapi = buildOpenApi(ds);
  bodies.set('/api/openapi.json', json(openapi));
  // The front door (issue 7): pages and their assets are bodies like any other.
  bodies.set('/', renderHome(ds.grains));
  bodies.set('/docs', renderDocs(openapi, examples(ds)));
  bodies.set('/grade', renderGradePage(ds.grains));
  // The answers to the front door's form post, filled by the gateway (issue 19)
  bodies.set(PAGE_TEMPLATES.registered, renderRegistered());
  bodies.set(PAGE_TEMPLATES.registerError, renderRegisterError());
  for (const [route, text] of Object.entries(ASSETS)) bodies.set(route, text);
  // The code that runs at the user's: the reference grader (issue 16).
  for (const [route, text] of bundleClient()) bodies.set(route, text);
  return bodies;
}

const asset = (name: string) => readFileSync(new URL(`./pages/assets/${name}`, import.meta.url), 'utf8');
const ASSETS: Record<string, string> = {
  '/assets/site.css': asset('site.css'),
  '/assets/page.js': asset('page.js'),
  '/assets/grade-page.js': asset('grade-page.js'),
  '/assets/icon.svg': asset('icon.svg'),
};

/** Example answers for the API reference, taken from this build's own data. */
function examples(ds: Dataset): Record<string, Example> {
  const curl = (path: string) => `curl -H "X-API-Key: $GRAIN_API_KEY" '${ORIGIN_PLACEHOLDER}${path}'`;
  const rate = [
    'X-RateLimit-Limit: 100',
    'X-RateLimit-Remaining: 97',
    'X-RateLimit-Used: 3',
    'X-RateLimit-Reset: 1795352400',
    'RateLimit-Policy: "default";q=100;w=3600',
    'RateLimit: "default";r=97;t=2710',
  ];
  const data = [
    'Content-Type: application/json; charset=utf-8',
    'ETag: "…"',
    'Cache-Control: private, no-cache',
    ...rate,
  ];
  const sample = ds.grains.find((g) => g.grain_id === 'CORN_CW') ?? ds.grains[0]!;
  const sorted = ds.changelog.map(publishedEntry).sort(changelogOrder);
  return {
    'GET /api/grains': {
      request: curl('/api/grains'),
      status: 200,
      headers: data,
      body: { schema_version: SCHEMA_VERSION, count: ds.grains.length, grains: ds.grains.slice(0, 2).map(summaryOf) },
      note: `Shortened here to the first 2 of ${ds.grains.length} grains.`,
    },
    'GET /api/grains/{grain_id}': {
      request: curl(`/api/grains/${sample.grain_id.toLowerCase()}`),
      status: 200,
      headers: data,
      body: { schema_version: SCHEMA_VERSION, ...sample, factor_groups: sample.factor_groups.slice(0, 1) },
      note: `Shortened here to the first of ${sample.factor_groups.length} factor groups.`,
    },
    'GET /api/changelog': changelogExample(sorted, curl, data),
    'POST /api/register': {
      request: `curl -X POST -H 'Content-Type: application/json' -d '{"email":"you@example.com"}' '${ORIGIN_PLACEHOLDER}/api/register'`,
      status: 201,
      headers: ['Content-Type: application/json; charset=utf-8', 'Cache-Control: no-store'],
      body: {
        api_key: 'ggt_<32 random characters><6-character checksum>',
        email: 'you@example.com',
        schema_version: SCHEMA_VERSION,
      },
      note: 'The key is shown only in this answer; the service keeps only its SHA-256.',
    },
    'DELETE /api/keys/current': {
      request: `curl -X DELETE -H "X-API-Key: $GRAIN_API_KEY" '${ORIGIN_PLACEHOLDER}/api/keys/current'`,
      status: 204,
      headers: ['Cache-Control: no-store'],
      note: 'The key is revoked: from now on it is refused with 401. Other keys of the account go on working.',
    },
    'GET /api/openapi.json': {
      request: `curl '${ORIGIN_PLACEHOLDER}/api/openapi.json'`,
      status: 200,
      note: 'The OpenAPI 3.1 document this page is made from.',
    },
    'GET /health': {
      request: `curl '${ORIGIN_PLACEHOLDER}/health'`,
      status: 200,
      body: {
        status: 'ok',
        store: 'ok',
        dataset_version: sorted[0]?.id ?? 'unreleased',
        build_id: '…',
        schema_version: SCHEMA_VERSION,
      },
    },
  };
}

/** The newest entry that lists its changes (docs/api.md, "Changes as data"), else the newest. */
function changelogExample(sorted: ChangelogEntry[], curl: (path: string) => string, headers: string[]): Example {
  const entry = sorted.find((e) => e.changes?.length) ?? sorted[0];
  const grain = entry?.grain_ids_affected[0];
  const example: Example = {
    request: curl(`/api/changelog?${grain ? `grain_id=${grain}&` : ''}limit=1`),
    status: 200,
    headers,
    body: { schema_version: SCHEMA_VERSION, count: entry ? 1 : 0, entries: entry ? [entry] : [] },
  };
  if (entry && !entry.changes) {
    example.note =
      '`changes` is null on entries made before changes were recorded; a newer entry lists every value it ' +
      'changed, e.g. {"grain_id": "CWRS", "factor_id": "ergot", "grade": "No. 1 CWRS", "field": "value", ' +
      '"from": 0.04, "to": 0.03}.';
  }
  return example;
}
