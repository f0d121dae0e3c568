// The gateway's app driven in this process with no socket: a request object in, the answer's
// status, headers and body out, through the same `handle` gateway/server.ts calls. For tests of
// the glue (routes, keys, limits, the store, the build served); a request over a socket only where
// node:http or the process is the subject: signals, timeouts, sockets, start-up, the access log.
// startTestApp assembles the gateway's parts as server.ts does (gateway/assemble.ts) and listens on
// nothing; the app of a listening test gateway (`t.gateway.app`) can be driven the same way.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { App, GatewayRequest } from '../../gateway/app.ts';
import { assembleGateway, type GatewayParts } from '../../gateway/assemble.ts';
import { ERRORS } from '../../gateway/errors.ts';
import type { Store } from '../../gateway/store/types.ts';
import { recordIssuedKey, type TestClock, testClock, testConfig, testLogs } from './gateway.ts';

export interface TestApp extends GatewayParts {
  clock: TestClock;
  stateDir: string;
  siteDir: string;
  logs: string[];
}

/** The gateway assembled in this process, with no socket: its app, store and clock. */
export async function startTestApp(
  env: Record<string, string> = {},
  opts: {
    clock?: TestClock;
    sitePollMs?: number;
    mailRetryDelaysMs?: number[];
    /** A store opened by the test (one that saves its windows sooner, say); else chosen from `env`. */
    store?: Store;
  } = {},
): Promise<TestApp> {
  const config = testConfig(env);
  const logs = testLogs();
  const clock = opts.clock ?? testClock();
  const logWrite = (s: string) => logs.push(s);
  const { mailRetryDelaysMs, store } = opts;
  const parts = await assembleGateway({
    config,
    clock,
    logWrite,
    sitePollMs: opts.sitePollMs ?? 50,
    mailRetryDelaysMs,
    store,
  });
  // no socket: its own origin is the one inject's requests name (Host: localhost), for recovery
  // links when PUBLIC_URL is not set
  parts.listeningAt('http://localhost');
  return Object.assign(parts, { clock, stateDir: config.stateDir, siteDir: config.siteDir, logs });
}

export interface InjectRequest {
  /** GET unless named. */
  method?: string;
  /** The request target as a client sends it: path and query. */
  url: string;
  /**
   * Names in lower case, each once, as node:http gives them to the app (a header a client sends
   * twice reaches the app joined with ", ", or only the first for Host and the like, never as a
   * list); Host is localhost unless named.
   */
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** The peer's address; 127.0.0.1 unless named (another address plays another machine). */
  remoteAddress?: string;
}

export interface Injected {
  status: number;
  /** By lower-case name; a name given twice is joined with ", ", as node:http's client does. */
  headers: Record<string, string>;
  /** The flat [name, value, …] list the app answered, in its order and case. */
  rawHeaders: string[];
  /** Empty when the app answered no body (HEAD, 304, 204). */
  body: Buffer;
  /** The account the answer was served to, as the access log would name it. */
  account: string | null;
  // biome-ignore lint/suspicious/noExplicitAny: tests read bodies as whatever shape they assert
  json(): any;
  text(): string;
}

const KEY = /ggt_[A-Za-z0-9_-]{38}/g;

/** Every answer injected in this test file, in order (a suite may hold them against the OpenAPI). */
export const injections: { app: App; method: string; url: string; response: Injected }[] = [];

/**
 * One request through `app.handle`, as gateway/server.ts makes it: the body is read on demand and
 * refused past the app's limit with the server's 413. An error the app throws is thrown here, with
 * its stack (turning it into a 500 is the server's part). `now` is the request's time; the app's
 * clock when not given. Like an answer over a socket, it comes in a later turn of the event loop, so
 * a loop of requests leaves timers their turn (a poll, a checkpoint, a store reconnecting).
 */
export async function inject(app: App, request: InjectRequest, now?: number): Promise<Injected> {
  await nextTurn();
  const body = request.body === undefined ? Buffer.alloc(0) : Buffer.from(request.body);
  const req: GatewayRequest = {
    method: request.method ?? 'GET',
    url: request.url,
    // every HTTP/1.1 request names its host, and the pages are filled for the origin it names
    headers: { host: 'localhost', ...request.headers },
    remoteAddress: request.remoteAddress ?? '127.0.0.1',
    readBody: (limit) => (body.length > limit ? Promise.reject(ERRORS.tooLarge) : Promise.resolve(body)),
  };
  const r = await app.handle(req, now);
  assert.equal(r.proxy, null, 'inject serves a site from disk; an upstream answer needs the real server');
  const headers: Record<string, string> = {};
  for (let i = 0; i < r.headers.length; i += 2) {
    const name = r.headers[i]!.toLowerCase();
    const value = r.headers[i + 1]!;
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  // a body streamed from disk (gateway/body-reader.ts) is read whole, as the server would send it
  const answer = r.body instanceof Readable ? Buffer.concat(await r.body.toArray()) : (r.body ?? Buffer.alloc(0));
  // a key handed out here is held to the same leak scan as one issued over HTTP (gateway.ts)
  if (r.status === 201) for (const [key] of answer.toString().matchAll(KEY)) recordIssuedKey(key);
  const injected: Injected = {
    status: r.status,
    headers,
    rawHeaders: r.headers,
    body: answer,
    account: r.account,
    json: () => JSON.parse(answer.toString()),
    text: () => answer.toString(),
  };
  injections.push({ app, method: req.method, url: request.url, response: injected });
  return injected;
}

/** A POST of `body` as JSON: a value is serialised, a string sent as it is (malformed on purpose). */
export const injectJson = (app: App, url: string, body: unknown, headers: Record<string, string> = {}) =>
  inject(app, {
    method: 'POST',
    url,
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

/** Registers `email` through the app and gives the key (the 201 asserted); `headers` as a client's. */
export async function injectRegister(app: App, email: string, headers: Record<string, string> = {}): Promise<string> {
  const res = await injectJson(app, '/api/register', { email }, headers);
  assert.equal(res.status, 201, res.text());
  return res.json().api_key;
}

/** A GET, with the key when given. */
export const injectGet = (app: App, url: string, key?: string, headers: Record<string, string> = {}) =>
  inject(app, { url, headers: key ? { 'x-api-key': key, ...headers } : headers });

/** Waits until the app's store answers (a Redis store connects after the gateway starts). */
export async function untilStoreReady(app: App, ms = 5_000): Promise<void> {
  const t0 = Date.now();
  while ((await injectGet(app, '/health')).json().store !== 'ok') {
    if (Date.now() - t0 > ms) assert.fail(`the store was not ready within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
