// The API reference's example answers (GET /docs), taken from this build's own data.

import { changelogOrder } from '../compile/compile.ts';
import { publishedEntry } from '../compile/published.ts';
import { summaryOf } from '../grain-summary.ts';
import {
  API_KEY_HEADER,
  changelogKey,
  EXAMPLE_REQUESTS_USED,
  GRAIN_LIST_KEY,
  grainKey,
  RATE_LIMIT_HEADERS as H,
  JSON_CONTENT_TYPE,
  JSON_MEDIA_TYPE,
  KEY_PREFIX,
  RECOVERY_ACCEPTED_MESSAGE,
  RECOVERY_TOKEN_PREFIX,
  ROUTES,
  type RouteName,
  rateLimitPolicy,
  SCHEMA_VERSION,
  SLOTS,
} from '../site-format.ts';
import type { ChangelogEntry } from '../types.ts';
import type { Dataset } from '../validate/validate.ts';
import type { Example } from './docs.ts';

/** An operation's name in the OpenAPI document's terms: `GET /api/grains`. */
const op = (name: RouteName, method = 'GET') => `${method} ${ROUTES[name].path}`;

/** Example answers for the API reference, taken from this build's own data. */
export function referenceExamples(ds: Dataset): Record<string, Example> {
  const origin = SLOTS.origin;
  const curl = (path: string) => `curl -H "${API_KEY_HEADER}: $GRAIN_API_KEY" '${origin}${path}'`;
  const { rate_limit_per_hour: limit, rate_limit_remaining_example: remaining } = SLOTS;
  const rate = [
    `${H.limit}: ${limit}`,
    `${H.remaining}: ${remaining}`,
    `${H.used}: ${EXAMPLE_REQUESTS_USED}`,
    `${H.reset}: 1795352400`,
    `${H.policy}: ${rateLimitPolicy(limit)}`,
    `${H.rateLimit}: "default";r=${remaining};t=2710`,
  ];
  const data = [`Content-Type: ${JSON_CONTENT_TYPE}`, 'ETag: "…"', 'Cache-Control: private, no-cache', ...rate];
  /** A JSON POST of the key operations, with its JSON answer. */
  const post = (name: RouteName, json: string, status: number, body: object): Example => ({
    request: `curl -X POST -H 'Content-Type: ${JSON_MEDIA_TYPE}' -d '${json}' '${origin}${ROUTES[name].path}'`,
    status,
    headers: [`Content-Type: ${JSON_CONTENT_TYPE}`, 'Cache-Control: no-store'],
    body,
  });
  const newKey = {
    api_key: `${KEY_PREFIX}<32 random characters><6-character checksum>`,
    email: 'you@example.com',
    schema_version: SCHEMA_VERSION,
  };
  const sample = ds.grains.find((g) => g.grain_id === 'CORN_CW') ?? ds.grains[0]!;
  const sorted = ds.changelog.map(publishedEntry).sort(changelogOrder);
  return {
    [op('grains')]: {
      request: curl(GRAIN_LIST_KEY),
      status: 200,
      headers: data,
      body: { schema_version: SCHEMA_VERSION, count: ds.grains.length, grains: ds.grains.slice(0, 2).map(summaryOf) },
      note: `Shortened here to the first 2 of ${ds.grains.length} grains.`,
    },
    [op('grain')]: {
      request: curl(grainKey(sample.grain_id.toLowerCase())),
      status: 200,
      headers: data,
      body: { schema_version: SCHEMA_VERSION, ...sample, factor_groups: sample.factor_groups.slice(0, 1) },
      note: `Shortened here to the first of ${sample.factor_groups.length} factor groups.`,
    },
    [op('snapshot')]: {
      request: curl(ROUTES.snapshot.path),
      status: 200,
      headers: data,
      body: {
        schema_version: SCHEMA_VERSION,
        crop_year: null,
        count: ds.grains.length,
        grains: [{ schema_version: SCHEMA_VERSION, ...sample, factor_groups: sample.factor_groups.slice(0, 1) }],
        changelog: sorted.slice(0, 1),
      },
      note:
        `Shortened here to one of ${ds.grains.length} records (each exactly as GET ${ROUTES.grain.path} serves it) ` +
        `and the newest of ${sorted.length} changelog entries. Send its ETag back in If-None-Match: a 304 is free.`,
    },
    [op('changelog')]: changelogExample(sorted, curl, data),
    [op('register', 'POST')]: {
      ...post('register', '{"email":"you@example.com"}', 201, newKey),
      note: 'The key is shown only in this answer; the service keeps only its SHA-256.',
    },
    [op('recover', 'POST')]: {
      ...post('recover', '{"email":"you@example.com"}', 202, {
        email: 'you@example.com',
        message: RECOVERY_ACCEPTED_MESSAGE,
        schema_version: SCHEMA_VERSION,
      }),
      note: 'The same answer for every address; the mail goes only to an address an account holds.',
    },
    [op('recoverConfirm', 'POST')]: {
      ...post('recoverConfirm', `{"token":"${RECOVERY_TOKEN_PREFIX}…"}`, 201, newKey),
      note: "The token is the link's code parameter. Every earlier key of the account is now revoked.",
    },
    [op('revokeKey', 'DELETE')]: {
      request: `curl -X DELETE -H "${API_KEY_HEADER}: $GRAIN_API_KEY" '${origin}${ROUTES.revokeKey.path}'`,
      status: 204,
      headers: ['Cache-Control: no-store'],
      note: 'The key is revoked: from now on it is refused with 401. Other keys of the account go on working.',
    },
    [op('openapi')]: {
      request: `curl '${origin}${ROUTES.openapi.path}'`,
      status: 200,
      note: 'The OpenAPI 3.1 document this page is made from.',
    },
    [op('health')]: {
      request: `curl '${origin}${ROUTES.health.path}'`,
      status: 200,
      body: {
        status: 'ok',
        store: 'ok',
        mail: 'ok',
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
    request: curl(changelogKey(grain ?? null, 1)),
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
