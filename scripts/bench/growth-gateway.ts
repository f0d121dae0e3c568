// The gateway of npm run bench:growth: npm start's entry and options on a built site with the embedded store,
// its resident set read from /proc (now, and its peak), a load of data requests, and the wait for a
// new build to be swapped in.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { MANIFEST_FILE, type Manifest, POINTER_FILE, ROUTES, routeOf } from '../../build/site-format.ts';
import { root } from './context.ts';
import { npmStartArgs } from './npm-start.ts';

export interface GrowthGateway {
  /** From the spawn to /health's first 200. */
  startMs: number;
  /** Resident set now, and its peak since the start (VmHWM), in MiB. */
  rssMiB(): number;
  peakMiB(): number;
  /** `n` data requests, eight at a time, over every data route in turn, a third each plain, gzip and br. */
  load(n: number): Promise<void>;
  /** Until /health names `buildId`. */
  serving(buildId: string): Promise<void>;
  stop(): void;
}

const status = (pid: number, field: string) =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

function call(port: number, path: string, headers: Record<string, string>, body?: string) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: body ? 'POST' : 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function until(child: ChildProcess, what: string, done: () => Promise<boolean>) {
  const deadline = Date.now() + 60_000;
  while (!(await done().catch(() => false))) {
    if (child.exitCode !== null) throw new Error(`the gateway exited (${child.exitCode}) before ${what}`);
    if (Date.now() > deadline) throw new Error(`the gateway did not reach ${what} within 60 s`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export async function growthGateway(site: string): Promise<GrowthGateway> {
  const t0 = performance.now();
  // the embedded store and the build on disk, whatever this shell exports (REDIS_URL, UPSTREAM_URL…)
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(REDIS_|UPSTREAM_)/.test(k)));
  const child = spawn(process.execPath, npmStartArgs(root), {
    cwd: root,
    env: {
      ...env,
      PORT: '0',
      HOST: '127.0.0.1',
      SITE_DIR: site,
      STATE_DIR: join(site, '..', 'state'),
      RATE_LIMIT_PER_HOUR: '1000000',
    },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  child.on('error', () => {});
  let out = '';
  let port = 0;
  child.stdout!.on('data', (c: Buffer) => {
    out += c.toString();
    port ||= Number(/"event":"listening","port":(\d+)/.exec(out)?.[1] ?? 0);
  });
  const health = async () => (port ? await call(port, ROUTES.health.path, {}) : null);
  await until(child, ROUTES.health.path, async () => (await health())?.status === 200);
  const startMs = performance.now() - t0;
  const key = JSON.parse(
    (await call(port, ROUTES.register.path, { 'content-type': 'application/json' }, '{"email":"growth@example.com"}'))
      .text,
  ).api_key as string;
  const pid = child.pid!;
  return {
    startMs,
    rssMiB: () => status(pid, 'VmRSS'),
    peakMiB: () => status(pid, 'VmHWM'),
    async load(n) {
      const pointer = JSON.parse(readFileSync(join(site, POINTER_FILE), 'utf8')) as { dir: string };
      const manifest = JSON.parse(readFileSync(join(site, pointer.dir, MANIFEST_FILE), 'utf8')) as Manifest;
      const data = Object.keys(manifest.routes).filter((k) => ROUTES[routeOf(k) ?? 'home'].handler === 'data');
      const codings = ['identity', 'gzip', 'br'];
      let next = 0;
      const worker = async () => {
        for (let i = next++; i < n; i = next++) {
          const path = data[(i * 7919) % data.length]!;
          const r = await call(port, path, { 'x-api-key': key, 'accept-encoding': codings[i % 3]! });
          if (r.status !== 200) throw new Error(`${path} answered ${r.status}: ${r.text.slice(0, 200)}`);
        }
      };
      await Promise.all(Array.from({ length: 8 }, worker));
    },
    serving: (buildId) =>
      until(child, `build ${buildId}`, async () => JSON.parse((await health())?.text ?? '{}').build_id === buildId),
    stop: () => child.kill('SIGKILL'),
  };
}
