// The servers a scenario compares: the gateway as `npm start` runs it (the bundle, by node), a
// bare node:http server writing the same bytes (the physical limit for Node), and nginx serving the
// build as files. Each is pinned to CPU 0, the servers' core.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { type Bench, HEALTH, pin, root } from './context.ts';
import { probe } from './load.ts';
import { npmStartArgs } from './npm-start.ts';

export function reachable(port: number): Promise<boolean> {
  return new Promise((r) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      r(true);
    });
    s.once('error', () => r(false));
  });
}

export interface Running {
  url: string;
  pid: number;
  /** From the spawn to the first 200 on /health (the gateway), or to the port answering. */
  startupMs: number;
  stop(): Promise<void>;
}

/** `argv` on CPU 0, running once `ready` gives its URL (polled every 2 ms, up to 10 s); timed from the spawn. */
async function startPinned(
  b: Bench,
  argv: string[],
  options: Parameters<typeof spawn>[2],
  ready: (child: ChildProcess) => Promise<string | null>,
): Promise<Running> {
  const t0 = performance.now();
  const [cmd, ...args] = pin(0, argv);
  const child = spawn(cmd!, args, options);
  b.children.push(child);
  let url = await ready(child);
  for (let i = 0; i < 5_000 && !url; i++) {
    await new Promise((r) => setTimeout(r, 2));
    url = await ready(child);
  }
  if (!url) throw new Error(`${argv[0]} did not start`);
  const stop = () =>
    new Promise<void>((r) => {
      if (child.exitCode !== null) return r();
      child.once('exit', () => r());
      child.kill('SIGTERM');
    });
  return { url, pid: child.pid!, startupMs: performance.now() - t0, stop };
}

const portReady = (port: number) => async () => ((await reachable(port)) ? `http://127.0.0.1:${port}` : null);

/**
 * A checkout whose gateway the bench runs: its folder (holding its own scripts/start.mjs, and
 * node_modules where the bundle's packages resolve) and the bundle's folder inside it.
 */
export interface Checkout {
  dir: string;
  bundleDir: string;
}

/**
 * `checkout`'s bundle, made once before any gateway starts: a start then never pays for bundling,
 * and a source edited by someone else during the run does not change what is measured unless
 * start.mjs finds it newer, as npm start would.
 */
export function bundleForBench(checkout: Checkout) {
  if (existsSync(join(checkout.bundleDir, 'gateway.js'))) return;
  // a ref from before the bundler moved to scripts/ keeps it in build/
  const bundler = ['scripts/bundle-node.mjs', 'build/bundle-node.mjs'].find((f) => existsSync(join(checkout.dir, f)));
  const run = spawnSync(process.execPath, [bundler ?? 'scripts/bundle-node.mjs', checkout.bundleDir], {
    cwd: checkout.dir,
    stdio: [0, 2, 2],
  });
  if (run.status !== 0) throw new Error(`the gateway in ${checkout.dir} does not bundle`);
}

/**
 * The gateway as `npm start` runs it (npm-start.ts): node scripts/start.mjs, which imports the bundle; or, for
 * comparison, from the sources through tsx as `npm run dev` runs it (without the watcher). This
 * checkout's unless another is given (bench:compare's ref).
 */
export function startGateway(
  b: Bench,
  env: Record<string, string>,
  how: 'bundle' | 'tsx' = 'bundle',
  checkout: Checkout = { dir: root, bundleDir: b.bundleDir },
) {
  bundleForBench(checkout);
  const command = how === 'bundle' ? npmStartArgs(checkout.dir) : ['--import', 'tsx', 'gateway/index.ts'];
  let port = 0;
  let out = '';
  return startPinned(
    b,
    [process.execPath, ...command],
    {
      cwd: checkout.dir,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DIST_DIR: checkout.bundleDir, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
    async (child) => {
      if (child.exitCode !== null) throw new Error(`gateway exited ${child.exitCode}`);
      if (!port) {
        out += child.stdout!.read()?.toString() ?? '';
        port = Number(/"event":"listening","port":(\d+)/.exec(out)?.[1] ?? 0);
        // from here the request log is only drained, as fast as it comes: this process shares the
        // load generator's core, and a slow reader would hold the gateway's writes back
        if (port) child.stdout!.resume();
      }
      const url = `http://127.0.0.1:${port}`;
      return port && (await probe(url, HEALTH, {}).catch(() => null))?.status === 200 ? url : null;
    },
  );
}

/** The physical limit for Node: a bare server writing fixed bytes from memory. */
export function startBare(b: Bench, status: number, headers: [string, string][], body: Buffer) {
  const port = 18600 + Math.floor(Math.random() * 1000);
  const script = `
    const { createServer } = require('node:http');
    const body = Buffer.from(${JSON.stringify(body.toString('base64'))}, 'base64');
    const headers = ${JSON.stringify(headers.flat())};
    createServer((req, res) => { req.resume(); res.writeHead(${status}, headers); res.end(body); })
      .listen(${port}, '127.0.0.1');`;
  return startPinned(b, [process.execPath, '-e', script], { stdio: 'inherit' }, portReady(port));
}

/** nginx, one worker, in the foreground, in `dir`, with `server` as its one server block's body. */
export function startNginx(b: Bench, dir: string, server: string) {
  mkdirSync(dir, { recursive: true });
  const port = 18500 + Math.floor(Math.random() * 100);
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((k) => `${k}_temp_path ${dir}/${k};`);
  writeFileSync(
    join(dir, 'nginx.conf'),
    `worker_processes 1; daemon off; pid ${dir}/nginx.pid; error_log ${dir}/error.log;
events { worker_connections 1024; }
http { access_log off; sendfile on; tcp_nopush on; keepalive_requests 1000000;
  types { application/json json; } default_type application/json; etag on;
  ${temp.join(' ')}
  server { listen 127.0.0.1:${port};
  ${server} } }\n`,
  );
  return startPinned(b, ['nginx', '-c', join(dir, 'nginx.conf'), '-p', dir], { stdio: 'inherit' }, portReady(port));
}
