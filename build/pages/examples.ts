// The API reference's example answers (GET /docs), taken from this build's own data.
import { publishedEntry } from '../changelog/coverage.ts';
import { changelogOrder, summaryOf } from '../compile.ts';
import { ORIGIN_PLACEHOLDER } from '../site-format.ts';
import { type ChangelogEntry, SCHEMA_VERSION } from '../types.ts';
import type { Dataset } from '../validate.ts';
import type { Example } from './docs.ts';

/** Example answers for the API reference, taken from this build's own data. */
export function referenceExamples(ds: Dataset): Record<string, Example> {
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

/** The newest entry that lists its changes (docs/contract.md, "Changes as data"), else the newest. */
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
