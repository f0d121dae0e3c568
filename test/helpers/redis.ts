// Redis for the tests: the machine's server (127.0.0.1:6379, each test run under its own key
// prefix), or a private redis-server the test can stop and start. In CI these tests must run:
// a missing server fails them rather than skipping them (.ci/run starts one).
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';
import { tempDir } from './dataset.ts';

export const SHARED_REDIS = 'redis://127.0.0.1:6379';

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

/** Skip outside CI when there is no Redis; in CI the absence is a failure. */
export async function redisSkipReason(): Promise<string | false> {
  if (await reachable(6379)) return false;
  if (process.env.CI) throw new Error('CI: no Redis on 127.0.0.1:6379 (.ci/run should have started one)');
  return 'no Redis server on 127.0.0.1:6379';
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
 * A redis-server of the test's own, with append-only persistence so keys survive a restart;
 * `args` go after the defaults (a replica's --replicaof, a policy), `sentinel` makes it one of
 * Sentinel's with that configuration (written to a file: Sentinel rewrites it); `port`: a port of
 * the test's choosing (freePort) where it must come up later than a gateway.
 */
export async function startPrivateRedis(
  opts: { args?: string[]; sentinel?: string; port?: number } = {},
): Promise<PrivateRedis> {
  if (spawnSync('redis-server', ['--version']).status !== 0) throw new Error('redis-server is not installed');
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
          '--appendonly',
          'yes',
          '--appendfsync',
          'always',
          ...(opts.args ?? []),
        ];
  const start = async () => {
    child = spawn('redis-server', args, { stdio: 'ignore' });
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
