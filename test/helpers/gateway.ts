// Real gateways for the tests: in this process on port 0 (with an injected clock), or as a child
// process that can be killed. Requests go over real HTTP with a raw client that decodes nothing.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { fileURLToPath } from 'node:url';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { POINTER_FILE } from '../../build/site-format.ts';
import { loadConfig } from '../../gateway/config.ts';
import { type Gateway, startGateway } from '../../gateway/server.ts';
import { bundled } from './bundles.ts';
import { tempDir } from './dataset.ts';

export const root = fileURLToPath(new URL('../..', import.meta.url));

// Every key handed out by a 201 in this test file, and everything its gateways logged: when the
// file ends, no key may appear in any log (docs/contract.md, Keys and registration). Every suite
// checks this by using the helpers.
const issuedKeys = new Set<string>();
const gatewayLogs: string[][] = [];
after(() => {
  const everything = gatewayLogs.map((l) => l.join('')).join('\n');
  for (const key of issuedKeys) {
    assert.ok(!everything.includes(key.slice(4)), 'an issued key appears in a gateway log');
  }
});
export const keysIssuedSoFar = () => issuedKeys.size;
/** A key issued where these helpers do not see it (in a browser): held to the same scan. */
export const recordIssuedKey = (key: string) => issuedKeys.add(key);
const keysIn = (text: string) => [...text.matchAll(/ggt_[A-Za-z0-9_-]{38}/g)].map((m) => m[0]);
const decoded = (headers: IncomingHttpHeaders, body: Buffer) =>
  (headers['content-encoding'] === 'br'
    ? brotliDecompressSync(body)
    : headers['content-encoding'] === 'gzip'
      ? gunzipSync(body)
      : body
  ).toString();

let realSite: string | null = null;
/**
 * The real dataset's site, built once for the whole run and shared by the test files' processes
 * (read only: a test that publishes builds has a folder of its own). It is kept under the hash of
 * everything it is built from, so a changed dataset or build code builds anew; the first process
 * to finish moves its folder into place whole, and the others keep theirs. Built by npm run build's
 * command in a child, so that a caller need not wait: most call this where a value is wanted.
 */
export function realSiteDir(): string {
  if (realSite) return realSite;
  const hash = createHash('sha256');
  for (const dir of ['dataset', 'build']) {
    for (const file of readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' }).sort()) {
      const path = join(root, dir, file);
      if (statSync(path).isFile()) hash.update(file).update(readFileSync(path));
    }
  }
  hash.update(readFileSync(join(root, 'scripts/build.ts'))); // the command that builds it
  const shared = join(tmpdir(), `grain-test-site-${hash.digest('hex').slice(0, 16)}`);
  if (!existsSync(join(shared, POINTER_FILE))) {
    const own = tempDir('site');
    const cache = join(root, 'node_modules/.cache/test-real-site');
    // the signed editions' development keys: one set for every test site, made by the first build
    const state = join(tmpdir(), 'grain-test-signing-state');
    const args = ['--import', 'tsx', 'scripts/build.ts', '--dataset', 'dataset', '--out', own, '--cache', cache];
    args.push('--state', state);
    const run = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8' });
    assert.equal(run.status, 0, `the real dataset does not build: ${run.stderr}`);
    try {
      renameSync(own, shared);
    } catch {
      realSite = own; // another process put its folder there first: the same bytes
      return own;
    }
  }
  realSite = shared;
  return shared;
}

export interface TestClock {
  (): number;
  now: number;
  advance(ms: number): void;
}
export function testClock(start = Date.UTC(2026, 10, 22, 12, 0, 0)): TestClock {
  const c = (() => c.now) as TestClock;
  c.now = start;
  c.advance = (ms) => {
    c.now += ms;
  };
  return c;
}

export interface TestGateway {
  gateway: Gateway;
  url: string;
  clock: TestClock;
  logs: string[];
  stateDir: string;
  siteDir: string;
  close(): Promise<void>;
}

/**
 * Test gateways log every request (the default logs errors only): tests read served requests in the
 * log, and the scan for keys in every log reads request lines too.
 */
const TEST_LOG = { ACCESS_LOG: 'all' };

/** The configuration of a test gateway: port 0 on loopback, a fresh STATE_DIR, the real site. */
export function testConfig(env: Record<string, string> = {}) {
  return loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    STATE_DIR: env.STATE_DIR ?? tempDir('state'),
    SITE_DIR: env.SITE_DIR ?? realSiteDir(),
    SHUTDOWN_GRACE_MS: '2000',
    ...TEST_LOG,
    ...env,
  });
}

export async function startTestGateway(
  env: Record<string, string> = {},
  opts: { clock?: TestClock; sitePollMs?: number; mailRetryDelaysMs?: number[] } = {},
): Promise<TestGateway> {
  const config = testConfig(env);
  const clock = opts.clock ?? testClock();
  const logs: string[] = [];
  gatewayLogs.push(logs);
  const gateway = await startGateway({
    config,
    clock,
    logWrite: (s) => logs.push(s),
    sitePollMs: opts.sitePollMs ?? 50,
    mailRetryDelaysMs: opts.mailRetryDelaysMs,
  });
  const { stateDir, siteDir } = config;
  return { gateway, url: gateway.url, clock, logs, stateDir, siteDir, close: () => gateway.close() };
}

/** The logs of a gateway assembled in process (test/helpers/inject.ts), held to the same key scan. */
export function testLogs(): string[] {
  const logs: string[] = [];
  gatewayLogs.push(logs);
  return logs;
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  // biome-ignore lint/suspicious/noExplicitAny: tests read bodies as whatever shape they assert
  json(): any;
  text(): string;
}

const agent = new Agent({ keepAlive: true, maxSockets: 256 });

export function request(
  base: string,
  path: string,
  opts: {
    method?: string;
    headers?: Record<string, string | string[]>;
    body?: string | Buffer;
    agent?: Agent | false;
    /** The client's own address (another loopback address plays another machine). */
    localAddress?: string;
  } = {},
  retried = false,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const url = new URL(base);
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path,
        method: opts.method ?? 'GET',
        headers: opts.headers,
        agent: opts.localAddress ? false : (opts.agent ?? agent),
        localAddress: opts.localAddress,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          // A key is issued as JSON (an API call, a rotation) or on a page (the form's answer)
          if (res.statusCode === 201) for (const key of keysIn(decoded(res.headers, body))) issuedKeys.add(key);
          resolve({
            status: res.statusCode!,
            headers: res.headers,
            body,
            json: () => JSON.parse(body.toString()),
            text: () => body.toString(),
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => {
      // The gateway closed an idle kept-alive connection just as this request went out on it: the
      // request never reached it, so it goes again on a new connection (node's http docs' advice)
      if (req.reusedSocket && err.code === 'ECONNRESET' && !retried) resolve(request(base, path, opts, true));
      else reject(err);
    });
    req.end(opts.body);
  });
}

export async function register(base: string, email: string, headers: Record<string, string> = {}): Promise<string> {
  const res = await request(base, '/api/register', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ email }),
  });
  assert.equal(res.status, 201, res.text());
  return res.json().api_key;
}

export const get = (base: string, path: string, key?: string, headers: Record<string, string> = {}) =>
  request(base, path, { headers: key ? { 'x-api-key': key, ...headers } : headers });

/** The gateway as its own process (npm start's entry), for kill -9 and signal tests. */
export interface ChildGateway {
  child: ChildProcess;
  url: string;
  output: string[];
  exited: Promise<number | null>;
}

/**
 * Gateways this test file spawned and has not seen exit: killed when the file ends, so a test
 * that fails before closing its own leaves no process behind, and the run ends instead of waiting.
 */
const running = new Set<ChildProcess>();
after(() => {
  for (const child of running) child.kill('SIGKILL');
});

/** `args`: node's arguments; the default runs the gateway's bundle, as npm start does (bundles.ts). */
export async function spawnGateway(env: Record<string, string>, args?: string[]): Promise<ChildGateway> {
  const child = spawn(process.execPath, args ?? (await bundled('gateway')), {
    cwd: root,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...TEST_LOG, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  gatewayLogs.push(output);
  running.add(child);
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  void exited.then(() => running.delete(child));
  const url = await new Promise<string>((resolve, reject) => {
    let buffered = '';
    child.stdout!.on('data', (c: Buffer) => {
      output.push(c.toString());
      buffered += c.toString();
      const m = /"event":"listening","port":(\d+)/.exec(buffered);
      if (m) resolve(`http://127.0.0.1:${m[1]}`);
    });
    child.stderr!.on('data', (c: Buffer) => output.push(c.toString()));
    void exited.then((code) => reject(new Error(`gateway exited (${code}) before listening:\n${output.join('')}`)));
    setTimeout(() => reject(new Error(`gateway did not start:\n${output.join('')}`)), 20_000).unref();
  });
  return { child, url, output, exited };
}

/**
 * npm run accounts as a child process on the store `env` names (STATE_DIR, or REDIS_URL and its
 * prefix). Asynchronous, so a gateway in this process keeps answering while it runs.
 */
export function runAccounts(
  env: Record<string, string | undefined>,
  ...args: string[]
): Promise<{ status: number; stdout: string; stderr: string }> {
  return runAccountsWithInput(env, '', ...args);
}

/** npm run accounts as runAccounts runs it, with `input` on its standard input (then closed). */
export async function runAccountsWithInput(
  env: Record<string, string | undefined>,
  input: string,
  ...args: string[]
): Promise<{ status: number; stdout: string; stderr: string }> {
  const command = await bundled('accounts', ...args);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, command, {
      cwd: root,
      env: { ...process.env, ...env },
    });
    child.stdin!.end(input);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ status: code ?? -1, stdout, stderr }));
  });
}
