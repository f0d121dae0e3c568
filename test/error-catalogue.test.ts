// tier: full (a tmpfs mounted for the full disk)
// The error catalogue (gateway/errors.ts) held against the OpenAPI document: every catalogue entry
// is produced by some request, with its status and sentence; every error status a produced answer
// has is documented on that operation; every error status the document declares is produced on that
// operation. What is not an operation (a wrong method, an unknown path, what never becomes a request)
// is checked against the document too: 405 names the methods it lists. The requests are injected
// into the gateways' apps (helpers/inject.ts), but for what node:http answers itself: the bodies
// streamed from an upstream origin, and bytes that never become a request.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import {
  ERROR_CODES,
  escapeHtml,
  RECOVERY_MAILS_PER_HOUR,
  RECOVERY_TOKEN_MINUTES,
  ROUTES,
  readBuild,
} from '../build/site-format.ts';
import { ERRORS, type ErrorName, unknownCropYearOf, unknownKeyErrors } from '../gateway/errors.ts';
import { generateKey } from '../gateway/keys.ts';
import { acceptLoss } from '../gateway/store/redis/identity-scripts.ts';
import { realSiteDir, request, root, startTestGateway, type TestGateway } from './helpers/gateway.ts';
import {
  inject,
  injectGet,
  injectJson,
  injectRegister,
  startTestApp,
  type TestApp,
  untilStoreReady,
} from './helpers/inject.ts';
import { eventually, recoveryToken } from './helpers/mail.ts';
import { fileRedis, redisSkipReason, uniquePrefix } from './helpers/redis.ts';
import { mountSmallDisk } from './helpers/small-disk.ts';
import { type StaticOrigin, startStaticOrigin } from './helpers/static-origin.ts';

/** A full disk under the diskFull gateway's STATE_DIR: a tmpfs (root only; skipped elsewhere, not in CI). */
const disk = mountSmallDisk('4m');

/** The gateways whose answers are asked over HTTP: their bodies are streamed from the origin by server.ts. */
type Upstream = 'upstreamDown' | 'upstreamSlow';
/**
 * The gateways on the file's own Redis whose key store is in a state of its own (docs/operations.md,
 * Redis in production).
 */
type RedisGw = 'redisLost' | 'redisAccepted' | 'redisUnreplicated';
type Gw = 'main' | 'tight' | 'redisDown' | Upstream | 'diskFull' | 'recovery' | RedisGw;
interface Case {
  error: ErrorName;
  gw: Gw;
  /** The OpenAPI operation, `METHOD /path/template`, or null for what is not an operation. */
  op: string | null;
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** Needs a key of its own on that gateway, with its quota spent when 'spent'. */
  key?: 'fresh' | 'spent' | 'unknown';
  /** A form post: the answer is a page saying the sentence (HTML-escaped), not JSON. */
  page?: true;
  /** The sentence when it is made for the case (the catalogue's error with its own words), else the catalogue's. */
  message?: string;
  /** The body is {"token": …} with a real recovery token in that state (the recovery gateway). */
  token?: 'used' | 'expired' | 'superseded' | 'live';
}

/** When the accepted loss of the redisAccepted gateway's store happened: its 401 names it. */
const LOSS_ACCEPTED_AT = Date.UTC(2026, 10, 20, 8, 30, 0);
const redisSkip = await redisSkipReason();
const redisUrl = fileRedis();
const REDIS_GWS: Gw[] = ['redisLost', 'redisAccepted', 'redisUnreplicated'];
/** Why a gateway's cases cannot run here (a string), or false. */
const skipOf = (gw: Gw): string | false =>
  gw === 'diskFull' && typeof disk === 'string' ? disk : REDIS_GWS.includes(gw) ? redisSkip : false;

const DATA_OPS: [op: string, path: string][] = [
  ['GET /api/grains', '/api/grains'],
  ['GET /api/grains/{grain_id}', '/api/grains/CWRS'],
  ['GET /api/changelog', '/api/changelog?limit=2'],
  ['GET /api/snapshot', '/api/snapshot'],
];
const json = { 'content-type': 'application/json' };
const form = { 'content-type': 'application/x-www-form-urlencoded' };
const REGISTER = 'POST /api/register';
const GRAIN = 'GET /api/grains/{grain_id}';
const REVOKE = 'DELETE /api/keys/current';
const RECOVER = 'POST /api/keys/recover';
const CONFIRM = 'POST /api/keys/recover/confirm';
const post = (
  op: string | null,
  path: string,
  error: ErrorName,
  gw: Gw,
  body: string,
  headers: Record<string, string> = json,
): Case => ({
  error,
  gw,
  op,
  method: 'POST',
  path,
  headers,
  body,
});
const someone = '{"email":"someone@example.com"}';
const lostKeyMessage = unknownKeyErrors()(LOSS_ACCEPTED_AT).message;

/** X-API-Key sent twice, as node:http hands it on (RFC 9110 §5.3: joined by a comma). */
const TWO_KEYS = `${generateKey()}, ${generateKey()}`;
/** A query past the 8 KiB any URL of the service fits in: refused on every operation before routing. */
const LONG_QUERY = `?q=${'a'.repeat(9 * 1024)}`;

const CASES: Case[] = [
  ...[
    ...DATA_OPS.map(([op, path]) => [op, path.split('?')[0]!]),
    ['GET /api/openapi.json', '/api/openapi.json'],
    ['GET /health', '/health'],
  ].map(([op, path]): Case => ({ error: 'uriTooLong', gw: 'main', op: op!, path: `${path}${LONG_QUERY}` })),
  ...[REGISTER, RECOVER, CONFIRM].map(
    (op): Case => post(op, `${op.slice(5)}${LONG_QUERY}`, 'uriTooLong', 'main', someone),
  ),
  { error: 'uriTooLong', gw: 'main', op: REVOKE, method: 'DELETE', path: `/api/keys/current${LONG_QUERY}` },
  {
    error: 'repeatedKey',
    gw: 'main',
    op: REVOKE,
    method: 'DELETE',
    path: '/api/keys/current',
    headers: { 'x-api-key': TWO_KEYS },
  },
  post(REGISTER, '/api/register', 'repeatedKey', 'main', someone, { ...json, 'x-api-key': TWO_KEYS }),
  ...DATA_OPS.flatMap(([op, path]): Case[] => [
    { error: 'missingKey', gw: 'main', op, path },
    { error: 'invalidKey', gw: 'main', op, path, headers: { 'x-api-key': 'not-a-key' } },
    { error: 'repeatedKey', gw: 'main', op, path, headers: { 'x-api-key': `${TWO_KEYS}` } },
    { error: 'keyInQuery', gw: 'main', op, path: `${path}${path.includes('?') ? '&' : '?'}api_key=x` },
    { error: 'rateLimited', gw: 'tight', op, path, key: 'spent' },
    { error: 'storeUnavailable', gw: 'redisDown', op, path, key: 'unknown' },
    { error: 'upstreamFailed', gw: 'upstreamDown', op, path, key: 'fresh' },
    { error: 'upstreamTimeout', gw: 'upstreamSlow', op, path, key: 'fresh' },
    { error: 'preconditionFailed', gw: 'main', op, path, key: 'fresh', headers: { 'if-match': '"stale"' } },
    { error: 'keysRecovering', gw: 'redisLost', op, path, key: 'unknown' },
    { error: 'keysLost', gw: 'redisAccepted', op, path, key: 'unknown', message: lostKeyMessage },
  ]),
  {
    error: 'preconditionFailed',
    gw: 'main',
    op: 'GET /api/openapi.json',
    path: '/api/openapi.json',
    headers: { 'if-match': 'W/"stale", "other"' },
  },
  { error: 'unknownGrain', gw: 'main', op: GRAIN, path: '/api/grains/NOPE', key: 'fresh' },
  { error: 'unknownGrain', gw: 'main', op: 'GET /api/changelog', path: '/api/changelog?grain_id=NOPE', key: 'fresh' },
  { error: 'badCropYear', gw: 'main', op: GRAIN, path: '/api/grains/CWRS?crop_year=2025/27', key: 'fresh' },
  {
    error: 'unknownCropYear',
    gw: 'main',
    op: GRAIN,
    path: '/api/grains/CWRS?crop_year=1999%2F00',
    key: 'fresh',
    message: unknownCropYearOf('CWRS', ['2025/26']).message,
  },
  {
    error: 'unknownCropYear',
    gw: 'main',
    op: 'GET /api/snapshot',
    path: '/api/snapshot?crop_year=1999/00',
    key: 'fresh',
    message: unknownCropYearOf(null, ['2025/26', '2026/27']).message,
  },
  { error: 'badCropYear', gw: 'main', op: 'GET /api/snapshot', path: '/api/snapshot?crop_year=1999', key: 'fresh' },
  ...(
    [
      [GRAIN, '/api/grains/CWRS'],
      ['GET /api/snapshot', '/api/snapshot'],
    ] as const
  ).flatMap(([op, path]): Case[] => [
    { error: 'repeatedParam', gw: 'main', op, path: `${path}?crop_year=2025/26&crop_year=2025/26`, key: 'fresh' },
    { error: 'badQuery', gw: 'main', op, path: `${path}?x=%zz`, key: 'fresh' },
  ]),
  { error: 'badLimit', gw: 'main', op: 'GET /api/changelog', path: '/api/changelog?limit=0', key: 'fresh' },
  {
    error: 'repeatedParam',
    gw: 'main',
    op: 'GET /api/changelog',
    path: '/api/changelog?limit=1&limit=1',
    key: 'fresh',
  },
  { error: 'badQuery', gw: 'main', op: 'GET /api/changelog', path: '/api/changelog?limit=%zz', key: 'fresh' },
  { error: 'unsupportedType', gw: 'main', op: REGISTER, method: 'POST', path: '/api/register', body: '{}' },
  {
    error: 'tooLarge',
    gw: 'main',
    op: REGISTER,
    method: 'POST',
    path: '/api/register',
    headers: json,
    body: 'x'.repeat(2000),
  },
  { error: 'badJson', gw: 'main', op: REGISTER, method: 'POST', path: '/api/register', headers: json, body: '[]' },
  // the front door's form post, a route of its own outside the API: answered with a page
  { error: 'badForm', gw: 'main', op: null, method: 'POST', path: '/register', headers: form, body: 'x=1', page: true },
  {
    error: 'crossSiteForm',
    gw: 'main',
    op: null,
    method: 'POST',
    path: '/register',
    headers: { ...form, 'sec-fetch-site': 'cross-site' },
    body: 'email=a%40example.com',
    page: true,
  },
  {
    error: 'unsupportedFormType',
    gw: 'main',
    op: null,
    method: 'POST',
    path: '/register',
    headers: json,
    body: '{"email":"a@example.com"}',
    page: true,
  },
  {
    error: 'badEmail',
    gw: 'main',
    op: REGISTER,
    method: 'POST',
    path: '/api/register',
    headers: json,
    body: '{"email":"x"}',
  },
  {
    error: 'keyInQuery',
    gw: 'main',
    op: REGISTER,
    method: 'POST',
    path: '/api/register?api_key=x',
    headers: json,
    body: '{}',
  },
  {
    error: 'registerLimited',
    gw: 'tight',
    op: REGISTER,
    method: 'POST',
    path: '/api/register',
    headers: { ...json, 'x-forwarded-for': '10.9.9.9' },
    body: '{}',
  },
  {
    error: 'registerAttemptsLimited',
    gw: 'tight',
    op: REGISTER,
    method: 'POST',
    path: '/api/register',
    headers: { ...json, 'x-forwarded-for': '10.9.9.10' },
    body: '{}',
  },
  {
    error: 'storeUnavailable',
    gw: 'redisDown',
    op: REGISTER,
    method: 'POST',
    path: '/api/register',
    headers: json,
    body: '{"email":"a@example.com"}',
  },
  {
    error: 'cannotSaveKeys',
    gw: 'diskFull',
    op: REGISTER,
    method: 'POST',
    path: '/api/register',
    headers: json,
    body: '{"email":"full@example.com"}',
  },
  {
    error: 'tooManyKeys',
    gw: 'main',
    op: REGISTER,
    method: 'POST',
    path: '/api/register',
    headers: json,
    body: '{"email":"five-keys@example.com"}',
  },
  { error: 'missingKey', gw: 'main', op: REVOKE, method: 'DELETE', path: '/api/keys/current' },
  { error: 'invalidKey', gw: 'main', op: REVOKE, method: 'DELETE', path: '/api/keys/current', key: 'unknown' },
  { error: 'keyInQuery', gw: 'main', op: REVOKE, method: 'DELETE', path: '/api/keys/current?api_key=x' },
  {
    error: 'storeUnavailable',
    gw: 'redisDown',
    op: REVOKE,
    method: 'DELETE',
    path: '/api/keys/current',
    key: 'unknown',
  },
  {
    error: 'cannotSaveRevocation',
    gw: 'diskFull',
    op: REVOKE,
    method: 'DELETE',
    path: '/api/keys/current',
    key: 'fresh',
  },
  { error: 'notAllowedDelete', gw: 'main', op: null, path: '/api/keys/current' },
  ...(['keysRecovering', 'keysLost'] as const).map(
    (error): Case => ({
      error,
      gw: error === 'keysLost' ? 'redisAccepted' : 'redisLost',
      op: REVOKE,
      method: 'DELETE',
      path: '/api/keys/current',
      key: 'unknown',
      ...(error === 'keysLost' ? { message: lostKeyMessage } : {}),
    }),
  ),
  post(REGISTER, '/api/register', 'keysRecovering', 'redisLost', someone),
  // a recovery request is answered before its token is kept (gateway/recovery.ts): only its use can tell
  post(CONFIRM, '/api/keys/recover/confirm', 'keysRecovering', 'redisLost', `{"token":"ggr_${'A'.repeat(32)}"}`),
  post(REGISTER, '/api/register', 'keyNotReplicated', 'redisUnreplicated', '{"email":"unreplicated@example.com"}'),
  { ...post(CONFIRM, '/api/keys/recover/confirm', 'keyNotReplicated', 'redisUnreplicated', ''), token: 'live' },
  { error: 'keyInQuery', gw: 'main', op: 'GET /api/openapi.json', path: '/api/openapi.json?api_key=x' },
  { error: 'upstreamFailed', gw: 'upstreamDown', op: 'GET /api/openapi.json', path: '/api/openapi.json' },
  { error: 'upstreamTimeout', gw: 'upstreamSlow', op: 'GET /api/openapi.json', path: '/api/openapi.json' },
  { error: 'keyInQuery', gw: 'main', op: 'GET /health', path: '/health?api_key=x' },
  // If-Match is false where no ETag can match it: on every method, nothing done (negotiate.ts)
  { error: 'preconditionFailed', gw: 'main', op: 'GET /health', path: '/health', headers: { 'if-match': '"x"' } },
  post(REGISTER, '/api/register', 'preconditionFailed', 'main', someone, { ...json, 'if-match': '*' }),
  post(RECOVER, '/api/keys/recover', 'preconditionFailed', 'main', someone, { ...json, 'if-match': '"x"' }),
  post(CONFIRM, '/api/keys/recover/confirm', 'preconditionFailed', 'main', '{"token":"x"}', {
    ...json,
    'if-match': '*',
  }),
  {
    error: 'preconditionFailed',
    gw: 'main',
    op: REVOKE,
    method: 'DELETE',
    path: '/api/keys/current',
    key: 'fresh',
    headers: { 'if-match': '"nope"' },
  },
  // Not operations of the document: an unknown path, a method the path does not have.
  // Getting a key back
  post(RECOVER, '/api/keys/recover', 'unsupportedType', 'main', someone, {}),
  post(RECOVER, '/api/keys/recover', 'tooLarge', 'main', 'x'.repeat(2000)),
  post(RECOVER, '/api/keys/recover', 'badEmail', 'main', '{"email":"x"}'),
  post(RECOVER, '/api/keys/recover', 'badJson', 'main', '[]'),
  post(RECOVER, '/api/keys/recover?api_key=x', 'keyInQuery', 'main', someone),
  post(CONFIRM, '/api/keys/recover/confirm?api_key=x', 'keyInQuery', 'main', '{"token":"x"}'),
  post(RECOVER, '/api/keys/recover', 'recoveryMailsLimited', 'main', '{"email":"three-mails@example.com"}'),
  post(RECOVER, '/api/keys/recover', 'recoveryAddressLimited', 'tight', someone, {
    ...json,
    'x-forwarded-for': '10.9.9.11',
  }),
  post(RECOVER, '/api/keys/recover', 'storeUnavailable', 'redisDown', someone),
  post(CONFIRM, '/api/keys/recover/confirm', 'unsupportedType', 'main', '{}', form),
  post(CONFIRM, '/api/keys/recover/confirm', 'tooLarge', 'main', 'x'.repeat(2000)),
  post(CONFIRM, '/api/keys/recover/confirm', 'badRecoveryJson', 'main', '{"email":"a@example.com"}'),
  post(CONFIRM, '/api/keys/recover/confirm', 'recoveryTokenUnknown', 'main', `{"token":"ggr_${'A'.repeat(32)}"}`),
  { ...post(CONFIRM, '/api/keys/recover/confirm', 'recoveryTokenUsed', 'recovery', ''), token: 'used' },
  { ...post(CONFIRM, '/api/keys/recover/confirm', 'recoveryTokenExpired', 'recovery', ''), token: 'expired' },
  { ...post(CONFIRM, '/api/keys/recover/confirm', 'recoveryTokenSuperseded', 'recovery', ''), token: 'superseded' },
  post(CONFIRM, '/api/keys/recover/confirm', 'registerAttemptsLimited', 'tight', '{"token":"x"}', {
    ...json,
    'x-forwarded-for': '10.9.9.12',
  }),
  post(CONFIRM, '/api/keys/recover/confirm', 'storeUnavailable', 'redisDown', '{"token":"x"}'),
  {
    ...post(null, '/recover', 'crossSiteForm', 'main', 'email=a%40example.com', {
      ...form,
      'sec-fetch-site': 'cross-site',
    }),
    page: true,
  },
  { error: 'notFound', gw: 'main', op: null, path: '/api/nothing' },
  // a target no operation has room for, refused before it is routed (the wire's 414 is below)
  { error: 'uriTooLong', gw: 'main', op: null, path: `/api/grains/${'A'.repeat(9 * 1024)}` },
  { error: 'notAllowedGet', gw: 'main', op: null, method: 'DELETE', path: '/api/grains' },
  { error: 'notAllowedPost', gw: 'main', op: null, method: 'GET', path: '/api/register' },
  { error: 'notAllowedPost', gw: 'main', op: null, method: 'GET', path: '/register' },
];

/** What never becomes a request: raw bytes on a socket, answered by server.ts (a listening gateway). */
const RAW: [ErrorName, string][] = [
  ['badHttp', 'NOT HTTP AT ALL\r\n\r\n'],
  ['headersTooLarge', `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(17 * 1024)}\r\n\r\n`],
  ['uriTooLong', `GET /health?q=${'a'.repeat(17 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`],
  ['requestTimeout', 'GET /health HTTP/1.1\r\nHost: x\r\n'],
  ['connectNotAllowed', 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'],
];
/**
 * Codes the document lists on an operation that no case above produces there, each with why: a
 * recovery token on a full disk needs a mail sent before the disk fills (register's and revoke's
 * cases hold the same code path, failure() in gateway/app.ts).
 */
const NOT_PRODUCED_ON: [op: string, code: string][] = [[CONFIRM, 'cannot_save_keys']];
/** Never the answer to a request: anything unexpected is logged and answered with it. */
const NEVER_PRODUCED: ErrorName[] = ['internal'];

/** A documented answer: its body's schema, the Error body with `code` narrowed for the status. */
interface Answer {
  content?: Record<string, { schema: { allOf?: { properties?: { code?: { enum: string[] } } }[] } }>;
}
const codesOf = (answer: Answer) =>
  Object.values(answer.content ?? {}).flatMap(
    (c) => c.schema.allOf?.flatMap((s) => s.properties?.code?.enum ?? []) ?? [],
  );

function raw(base: string, bytes: string): Promise<{ status: number; body: unknown }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c)).on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString();
      const [head = '', body = ''] = text.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), body: JSON.parse(body) });
    });
  });
}

describe('error catalogue against the OpenAPI document', () => {
  const apps = {} as Record<Exclude<Gw, Upstream>, TestApp>;
  const servers = {} as Record<Upstream | 'wire', TestGateway>;
  const isUpstream = (gw: Gw): gw is Upstream => gw === 'upstreamDown' || gw === 'upstreamSlow';
  const appOf = (gw: Gw) => (isUpstream(gw) ? servers[gw].gateway.app : apps[gw].app);
  const origins: StaticOrigin[] = [];
  let doc: {
    paths: Record<string, Record<string, { responses: Record<string, Answer> }>>;
    components: { schemas: { Error: { properties: { code: { enum: string[] } } } } };
  };
  const produced = new Map<string, Set<number>>();
  /** `METHOD /path status` → the codes answered there. */
  const producedCodes = new Map<string, Set<string>>();
  const diskFullKeys: string[] = [];

  before(async () => {
    const [down, slow] = [await startStaticOrigin(realSiteDir()), await startStaticOrigin(realSiteDir())];
    origins.push(down, slow);
    // the OpenAPI document is read when a build is loaded, to fill its servers' origin (gateway/site.ts);
    // one that could not be read then is served from the origin as built, and can fail there
    const build = readBuild((path) => readFileSync(join(realSiteDir(), path), 'utf8'));
    const openapiHash = build.manifest.routes[ROUTES.openapi.path]!;
    for (const o of [down, slow]) o.refuse = (path) => path.includes(openapiHash);
    const upstream = (o: StaticOrigin) => ({
      UPSTREAM_URL: o.url,
      UPSTREAM_TIMEOUT_MS: '1000', // long enough for the build to load on a busy machine
      SITE_DIR: '/nonexistent',
    });
    apps.main = await startTestApp({ REGISTER_LIMIT_PER_HOUR: '1000' });
    apps.tight = await startTestApp({ RATE_LIMIT_PER_HOUR: '1', REGISTER_LIMIT_PER_HOUR: '1', TRUST_PROXY: '1' });
    apps.recovery = await startTestApp();
    apps.redisDown = await startTestApp({ REDIS_URL: 'redis://127.0.0.1:1', REDIS_KEY_PREFIX: 'catalogue:' });
    if (redisSkip === false) await startRedisGateways();
    servers.upstreamDown = await startTestGateway(upstream(down));
    servers.upstreamSlow = await startTestGateway(upstream(slow));
    servers.wire = await startTestGateway({ HEADERS_TIMEOUT_MS: '300', REQUEST_TIMEOUT_MS: '400' });
    if (typeof disk !== 'string') {
      apps.diskFull = await startTestApp({ STATE_DIR: join(disk.dir, 'state') });
      for (let i = 0; i < 2; i++)
        diskFullKeys.push(await injectRegister(apps.diskFull.app, `before-full-${i}@example.com`));
      // a fresh store's write-ahead log has no room to reuse: from here on every write needs space
      disk.fill();
    }
    await down.close(); // the manifest is loaded; every body now fails at the origin
    slow.delayMs = 3_000;
    doc = (await injectGet(apps.main.app, '/api/openapi.json')).json();
  });
  after(async () => {
    await Promise.all([...Object.values(apps), ...Object.values(servers)].map((g) => g.close()));
    await Promise.all(origins.map((o) => o.close()));
  });

  /**
   * On the file's own Redis, each under a prefix of its own: a store found lost (its identity gone),
   * one whose loss an operator accepted, and one that waits for a replica Redis does not have.
   */
  async function startRedisGateways() {
    const url = await redisUrl();
    const redis = new Redis(url);
    const started = async (gw: RedisGw, env: Record<string, string> = {}) => {
      const prefix = uniquePrefix();
      apps[gw] = await startTestApp({ REDIS_URL: url, REDIS_KEY_PREFIX: prefix, ...env });
      // a store short of REDIS_MIN_REPLICAS is up but says it cannot issue (degraded)
      if (env.REDIS_MIN_REPLICAS) {
        const store = async () => (await injectGet(apps[gw].app, '/health')).json().store;
        await eventually(async () => (await store()) === 'degraded' || undefined, 'the replicas missed');
      } else await untilStoreReady(apps[gw].app);
      return prefix;
    };
    const lostBy = async (gw: RedisGw, prefix: string) => {
      await redis.del(`${prefix}store`);
      const seen = async () => (await injectGet(apps[gw].app, '/health')).json().status === 'store_data_lost';
      await eventually(async () => (await seen()) || undefined, 'the loss seen');
    };
    await lostBy('redisLost', await started('redisLost'));
    const accepted = await started('redisAccepted');
    await lostBy('redisAccepted', accepted);
    await acceptLoss(redis, accepted, LOSS_ACCEPTED_AT);
    await untilStoreReady(apps.redisAccepted.app, 10_000);
    await started('redisUnreplicated', { REDIS_MIN_REPLICAS: '1', REGISTER_LIMIT_PER_HOUR: '1000' });
    redis.disconnect();
  }

  let emails = 0;
  async function keyFor(gw: Gw, kind: Case['key']): Promise<string | undefined> {
    if (kind === undefined) return undefined;
    if (kind === 'unknown') return generateKey();
    if (gw === 'diskFull') return diskFullKeys.pop(); // issued before the disk was filled
    // the tight gateway allows one registration an address: each key comes from an address of its own
    const from = { 'x-forwarded-for': `10.0.0.${++emails}` };
    const key = await injectRegister(appOf(gw), `catalogue-${emails}@example.com`, from);
    if (kind === 'spent') assert.equal((await injectGet(appOf(gw), '/api/grains', key)).status, 200);
    return key;
  }

  /** A real token of the recovery gateway, in the state named (or a live one of the gateway named). */
  async function tokenIn(state: NonNullable<Case['token']>, gw: Gw): Promise<string> {
    if (state === 'live') {
      // the account exists, though its key was taken back: a recovery mail goes out
      const g = apps[gw as RedisGw];
      await injectJson(g.app, '/api/register', { email: 'token-live@example.com' });
      return recoveryToken(g.app, g.stateDir, 'token-live@example.com');
    }
    const g = apps.recovery;
    const email = `token-${state}@example.com`;
    await injectRegister(g.app, email);
    const token = await recoveryToken(g.app, g.stateDir, email);
    if (state === 'used') assert.equal((await injectJson(g.app, '/api/keys/recover/confirm', { token })).status, 201);
    if (state === 'superseded') await recoveryToken(g.app, g.stateDir, email);
    if (state === 'expired') g.clock.advance(RECOVERY_TOKEN_MINUTES * 60_000);
    return token;
  }

  it('every code is lower snake case, used once, and listed with its status in docs/contract.md', () => {
    const contract = readFileSync(join(root, 'docs/contract.md'), 'utf8');
    const codes = Object.values(ERRORS).map((e) => e.code);
    assert.equal(new Set(codes).size, codes.length);
    for (const e of Object.values(ERRORS)) {
      assert.match(e.code, /^[a-z][a-z0-9_]*$/);
      assert.ok(contract.includes(`| \`${e.code}\` | ${e.status} |`), `${e.code} is in docs/contract.md`);
    }
  });

  it("the document's error code is an enum of exactly the catalogue's codes, in its order", () => {
    assert.deepEqual(
      Object.values(ERRORS).map((e) => e.code),
      [...ERROR_CODES],
    );
    assert.deepEqual(doc.components.schemas.Error.properties.code.enum, ERROR_CODES);
  });

  for (const c of CASES) {
    const skip = skipOf(c.gw);
    it(`${c.error} (${ERRORS[c.error].status}) for ${c.method ?? 'GET'} ${c.path} on the ${c.gw} gateway`, {
      skip,
    }, async () => {
      const { main, tight } = apps;
      const asCase = { url: c.path, method: c.method, headers: c.headers, body: c.body };
      if (c.error === 'registerLimited')
        await injectRegister(tight.app, 'first@example.com', { 'x-forwarded-for': '10.9.9.9' });
      if (c.error === 'registerAttemptsLimited') {
        for (let i = 0; i < 10; i++)
          await injectJson(tight.app, '/api/register', '{}', { 'x-forwarded-for': '10.9.9.10' });
      }
      if (c.error === 'tooManyKeys')
        for (let i = 0; i < 5; i++) await injectRegister(main.app, 'five-keys@example.com');
      if (c.error === 'recoveryMailsLimited')
        for (let i = 0; i < RECOVERY_MAILS_PER_HOUR; i++) await inject(main.app, asCase);
      if (c.error === 'recoveryAddressLimited') await inject(tight.app, asCase);
      if (c.error === 'registerAttemptsLimited' && c.op === CONFIRM)
        for (let i = 0; i < 10; i++) await inject(tight.app, asCase);
      const key = await keyFor(c.gw, c.key);
      const headers = { ...c.headers, ...(key ? { 'x-api-key': key } : {}) };
      const body = c.token ? JSON.stringify({ token: await tokenIn(c.token, c.gw) }) : c.body;
      const asked = { method: c.method ?? 'GET', headers, body };
      const res = isUpstream(c.gw)
        ? await request(servers[c.gw].url, c.path, asked)
        : await inject(apps[c.gw].app, { url: c.path, ...asked });
      const err = ERRORS[c.error];
      const message = c.message ?? err.message;
      assert.equal(res.status, err.status, res.text());
      if (c.page) {
        assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
        assert.ok(res.text().includes(escapeHtml(message)), 'the page says why');
      } else {
        assert.deepEqual(res.json(), { error: message, status: err.status, code: err.code, schema_version: '1.0' });
      }
      for (const [name, value] of Object.entries(err.headers)) assert.equal(res.headers[name.toLowerCase()], value);
      if (c.op) produced.set(c.op, (produced.get(c.op) ?? new Set()).add(res.status));
      const at = `${c.op} ${res.status}`;
      if (c.op) producedCodes.set(at, (producedCodes.get(at) ?? new Set()).add(err.code));
      if (c.op === null && res.status === 405) {
        const path = c.path.split('?')[0]!;
        // the form's route is no operation of the API: it takes a POST alone
        const methods =
          path === '/register' ? ['POST'] : Object.keys(doc.paths[path] ?? {}).map((m) => m.toUpperCase());
        assert.equal(res.headers.allow, methods.join(', '), 'Allow names the methods the document lists');
      }
      if (c.op === null && res.status === 404) assert.equal(doc.paths[c.path], undefined);
    });
  }

  for (const [name, bytes] of RAW) {
    it(`${name} (${ERRORS[name].status}) for what never becomes a request`, async () => {
      const res = await raw(servers.wire.url, bytes);
      assert.equal(res.status, ERRORS[name].status);
      assert.deepEqual(res.body, {
        error: ERRORS[name].message,
        status: ERRORS[name].status,
        code: ERRORS[name].code,
        schema_version: '1.0',
      });
    });
  }

  it('every catalogue entry is produced by a request above (or is the 500 of a bug)', () => {
    const covered = new Set<ErrorName>([...CASES.map((c) => c.error), ...RAW.map(([n]) => n), ...NEVER_PRODUCED]);
    // without a full disk to test on, its two sentences are checked by nothing here (CI has one)
    assert.deepEqual(
      Object.keys(ERRORS).filter((n) => !covered.has(n as ErrorName)),
      [],
    );
  });

  it('each produced error is documented on its operation, and each documented error is produced', () => {
    const documented = new Map<string, Set<number>>();
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (method === 'head') continue; // a GET's twin, held to it below
        const errors = Object.keys(op.responses)
          .map(Number)
          .filter((s) => s >= 400);
        documented.set(`${method.toUpperCase()} ${path}`, new Set(errors));
      }
    }
    const sorted = (m: Map<string, Set<number>>) =>
      Object.fromEntries([...m].sort(([a], [b]) => a.localeCompare(b)).map(([op, s]) => [op, [...s].sort()]));
    assert.deepEqual(sorted(produced), sorted(documented));
  });

  it("each error status of an operation lists exactly the codes it answers there (its body's code enum)", () => {
    const documented = new Map<string, Set<string>>();
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (method === 'head') continue;
        for (const [status, answer] of Object.entries(op.responses)) {
          if (Number(status) < 400) continue;
          const name = `${method.toUpperCase()} ${path}`;
          const codes = codesOf(answer).filter((c) => !NOT_PRODUCED_ON.some(([o, n]) => o === name && n === c));
          // a case skipped here (no full disk) produced nothing: its code is not asked of the document
          const skipped = CASES.filter((c) => c.op === name && skipOf(c.gw) !== false);
          const held = codes.filter((c) => !skipped.some((k) => ERRORS[k.error].code === c));
          if (held.length) documented.set(`${name} ${status}`, new Set(held));
        }
      }
    }
    const sorted = (m: Map<string, Set<string>>) =>
      Object.fromEntries([...m].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, [...v].sort()]));
    assert.deepEqual(sorted(producedCodes), sorted(documented));
  });

  it('declares HEAD wherever GET is, with the same answers and no body', () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      const ops = item as Record<string, { responses: Record<string, { content?: unknown }> }>;
      if (!ops.get) continue;
      assert.ok(ops.head, `HEAD ${path} is declared`);
      assert.deepEqual(Object.keys(ops.head.responses), Object.keys(ops.get.responses), `HEAD ${path}'s statuses`);
      for (const [status, r] of Object.entries(ops.head.responses))
        assert.equal(r.content, undefined, `HEAD ${path} ${status} declares no body`);
    }
  });

  it('every operation under /api/ answers JSON alone (the form posts elsewhere)', () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      if (!path.startsWith('/api/')) continue;
      for (const [method, op] of Object.entries(item)) {
        for (const [status, r] of Object.entries(op.responses as Record<string, { content?: object }>)) {
          const types = Object.keys(r.content ?? {});
          assert.ok(
            types.every((t) => t === 'application/json'),
            `${method.toUpperCase()} ${path} ${status}: ${types.join(', ')}`,
          );
        }
        const body = (op as { requestBody?: { content: object } }).requestBody;
        if (body) assert.deepEqual(Object.keys(body.content), ['application/json'], `${path}'s request body`);
      }
    }
  });
});
