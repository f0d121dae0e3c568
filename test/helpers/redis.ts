// Redis for the tests: always a redis-server of the test's own on a free port, never one that
// happens to answer on the machine (a developer's own data may be there). A test file that only
// needs a server to talk to shares one with its other tests (fileRedis, each test under a key
// prefix of its own); a test that stops, restarts or configures its server starts its own
// (startPrivateRedis). Where redis-server is not installed these tests skip, saying so; in CI the
// absence is a failure (.ci/run installs it).
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';
import { after } from 'node:test';
import { promisify } from 'node:util';
import { tempDir } from './dataset.ts';

export function reachable(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, host);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

const installed = () =>
  promisify(execFile)('redis-server', ['--version']).then(
    () => true,
    () => false,
  );

/**
 * Why the Redis tests cannot run here, or false: the quick tier starts no process (npm test runs
 * them); outside CI a missing redis-server skips them; in CI it is a failure.
 */
export async function redisSkipReason(): Promise<string | false> {
  if (process.env.TEST_TIER === 'quick') return 'the quick tier starts no redis-server (npm test runs these)';
  if (await installed()) return false;
  if (process.env.CI) throw new Error("CI: redis-server is not installed (.ci/run installs Debian's redis-server)");
  return 'redis-server is not installed (apt-get install redis-server)';
}

/**
 * The test file's own plain redis-server (nothing kept on disk), for tests that only need a server to
 * talk to: call it at the file's top level; the server starts when a test first asks for its URL and
 * stops when the file's tests are done. One per file (each test file runs in a process of its own),
 * not one per test, keeps the suite's cost down; its tests keep to key prefixes of their own.
 */
export function fileRedis(): () => Promise<string> {
  let server: Promise<PrivateRedis> | undefined;
  after(async () => {
    const started = await server?.catch(() => undefined);
    await started?.stop();
  });
  return async () => {
    server ??= startPrivateRedis({ plain: true });
    return (await server).url;
  };
}

/** Polls `probe` until it returns true, for at most `ms`; returns how long it took. */
export async function within(ms: number, probe: () => Promise<boolean>): Promise<number> {
  const t0 = Date.now();
  while (!(await probe())) {
    if (Date.now() - t0 > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return Date.now() - t0;
}

export const uniquePrefix = () => `gg:test:${randomBytes(4).toString('hex')}:`;

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

export interface PrivateRedis {
  port: number;
  url: string;
  /** Where it keeps its files (the append-only file under appendonlydir/). */
  dir: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Sends the running server a signal (SIGSTOP: a paused machine; SIGCONT: it goes on). */
  signal(name: NodeJS.Signals): void;
}

/**
 * A redis-server of the test's own, with append-only persistence so keys survive a restart (`plain`:
 * none, for a server that is never restarted); `args` go after the defaults (a replica's
 * --replicaof, a policy), `sentinel` makes it one of Sentinel's with that configuration (written to a
 * file: Sentinel rewrites it); `port`: a port of the test's choosing (freePort) where it must come up
 * later than a gateway. A test process that ends without stopping it takes it along.
 */
export async function startPrivateRedis(
  opts: { args?: string[]; sentinel?: string; port?: number; plain?: boolean } = {},
): Promise<PrivateRedis> {
  if (!(await installed())) throw new Error('redis-server is not installed');
  const port = opts.port ?? (await freePort());
  const dir = tempDir('redis');
  let child: ChildProcess | null = null;
  const conf = join(dir, 'sentinel.conf');
  if (opts.sentinel !== undefined) writeFileSync(conf, `${opts.sentinel}\n`);
  const args =
    opts.sentinel !== undefined
      ? [conf, '--sentinel', '--port', String(port), '--bind', '127.0.0.1', '--dir', dir]
      : [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--dir',
          dir,
          '--save',
          '',
          ...(opts.plain ? ['--appendonly', 'no'] : ['--appendonly', 'yes', '--appendfsync', 'always']),
          ...(opts.args ?? []),
        ];
  const start = async () => {
    child = spawn('redis-server', args, { stdio: 'ignore' });
    const started = child;
    const orphan = () => started.kill('SIGKILL');
    process.once('exit', orphan);
    started.once('exit', () => process.off('exit', orphan));
    for (let i = 0; i < 100 && !(await reachable(port)); i++) await new Promise((r) => setTimeout(r, 50));
    if (!(await reachable(port))) throw new Error('the private redis-server did not start');
  };
  const stop = async () => {
    if (!child) return;
    const c = child;
    child = null;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGKILL');
    await exited;
  };
  await start();
  const signal = (name: NodeJS.Signals) => void (child as ChildProcess | null)?.kill(name);
  return { port, url: `redis://127.0.0.1:${port}`, dir, stop, start, signal };
}
