// The servers a scenario compares: the gateway as `npm start` runs it (the bundle, by node), a
// bare node:http server writing the same bytes (the physical limit for Node), and nginx serving the
// build as files.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { BUNDLE_DIR, children, HEALTH, pin, root, work } from './context.ts';

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

/**
 * The bench's own bundle, made once before any gateway starts: a start then never pays for
 * bundling, and a source edited by someone else during the run does not change what is measured
 * unless start.mjs finds it newer, as npm start would.
 */
export function bundleForBench() {
  if (existsSync(join(BUNDLE_DIR, 'gateway.js'))) return;
  const run = spawnSync(process.execPath, ['build/bundle-node.mjs', BUNDLE_DIR], { cwd: root, stdio: 'inherit' });
  if (run.status !== 0) throw new Error('the gateway does not bundle');
}

/**
 * The gateway as `npm start` runs it: node scripts/start.mjs, which imports the bundle; or, for
 * comparison, from the sources through tsx as `npm run dev` runs it (without the watcher).
 */
export async function startGateway(env: Record<string, string>, how: 'bundle' | 'tsx' = 'bundle'): Promise<Running> {
  bundleForBench();
  const t0 = performance.now();
  const command = how === 'bundle' ? ['scripts/start.mjs'] : ['--import', 'tsx', 'gateway/index.ts'];
  const [cmd, ...args] = pin(0, [process.execPath, ...command]);
  const child = spawn(cmd!, args, {
    cwd: root,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DIST_DIR: BUNDLE_DIR, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const port = await new Promise<number>((res, rej) => {
    let out = '';
    const onData = (c: Buffer) => {
      out += c.toString();
      const m = /"event":"listening","port":(\d+)/.exec(out);
      if (!m) return;
      // from here the request log is only drained, as fast as it comes: this process shares the
      // load generator's core, and a slow reader would hold the gateway's writes back
      child.stdout!.off('data', onData);
      child.stdout!.resume();
      res(Number(m[1]));
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => rej(new Error(`gateway exited ${code}`)));
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 500 && !(await healthy(url)); i++) await new Promise((r) => setTimeout(r, 10));
  const startupMs = performance.now() - t0;
  return { url, pid: child.pid!, startupMs, stop: () => stopChild(child) };
}

async function healthy(url: string): Promise<boolean> {
  try {
    return (await probe(url, HEALTH)) === 200;
  } catch {
    return false;
  }
}

/** A GET's status on a connection of its own (no client state carried into the start-up figure). */
function probe(url: string, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    get(`${url}${path}`, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    }).on('error', reject);
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((r) => {
    if (child.exitCode !== null) return r();
    child.once('exit', () => r());
    child.kill('SIGTERM');
  });
}

/** The physical limit for Node: a bare server writing fixed bytes from memory. */
export async function startBare(status: number, headers: [string, string][], body: Buffer): Promise<Running> {
  const t0 = performance.now();
  const port = 18600 + Math.floor(Math.random() * 1000);
  const script = `
    const { createServer } = require('node:http');
    const body = Buffer.from(${JSON.stringify(body.toString('base64'))}, 'base64');
    const headers = ${JSON.stringify(headers.flat())};
    createServer((req, res) => { req.resume(); res.writeHead(${status}, headers); res.end(body); })
      .listen(${port}, '127.0.0.1');`;
  const [cmd, ...args] = pin(0, [process.execPath, '-e', script]);
  const child = spawn(cmd!, args, { stdio: 'inherit' });
  children.push(child);
  for (let i = 0; i < 500 && !(await reachable(port)); i++) await new Promise((r) => setTimeout(r, 10));
  const startupMs = performance.now() - t0;
  return { url: `http://127.0.0.1:${port}`, pid: child.pid!, startupMs, stop: () => stopChild(child) };
}

/** nginx, one worker, serving the build output as plain static files. */
export function startNginx(siteDir: string): Promise<Running> {
  const dir = join(work, 'nginx');
  mkdirSync(dir, { recursive: true });
  return startNginxWith(dir, `root ${siteDir};`);
}

/** nginx, one worker, in the foreground, with `server` as its one server block's body. */
export async function startNginxWith(dir: string, server: string): Promise<Running> {
  const t0 = performance.now();
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
  const [cmd, ...args] = pin(0, ['nginx', '-c', join(dir, 'nginx.conf'), '-p', dir]);
  const child = spawn(cmd!, args, { stdio: 'inherit' });
  children.push(child);
  for (let i = 0; i < 500 && !(await reachable(port)); i++) await new Promise((r) => setTimeout(r, 10));
  const startupMs = performance.now() - t0;
  return { url: `http://127.0.0.1:${port}`, pid: child.pid!, startupMs, stop: () => stopChild(child) };
}
