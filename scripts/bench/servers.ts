// The servers a scenario compares: the gateway as `npm start` runs it, a bare node:http server
// writing the same bytes (the physical limit for Node), and nginx serving the build as files.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { children, pin, root, work } from './context.ts';

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
  startupMs: number;
  stop(): Promise<void>;
}

export async function startGateway(env: Record<string, string>): Promise<Running> {
  const t0 = performance.now();
  const [cmd, ...args] = pin(0, [process.execPath, '--import', 'tsx', 'gateway/index.ts']);
  const child = spawn(cmd!, args, {
    cwd: root,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...env },
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
  const startupMs = performance.now() - t0;
  return { url: `http://127.0.0.1:${port}`, pid: child.pid!, startupMs, stop: () => stopChild(child) };
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
  const port = 18600 + Math.floor(Math.random() * 1000);
  const script = `
    const { createServer } = require('node:http');
    const body = Buffer.from(${JSON.stringify(body.toString('base64'))}, 'base64');
    const headers = ${JSON.stringify(headers.flat())};
    createServer((req, res) => { req.resume(); res.writeHead(${status}, headers); res.end(body); }).listen(${port}, '127.0.0.1');`;
  const [cmd, ...args] = pin(0, [process.execPath, '-e', script]);
  const child = spawn(cmd!, args, { stdio: 'inherit' });
  children.push(child);
  for (let i = 0; i < 100 && !(await reachable(port)); i++) await new Promise((r) => setTimeout(r, 30));
  return { url: `http://127.0.0.1:${port}`, pid: child.pid!, startupMs: 0, stop: () => stopChild(child) };
}

/** nginx, one worker, serving the build output as plain static files. */
export async function startNginx(siteDir: string): Promise<Running> {
  const port = 18500 + Math.floor(Math.random() * 100);
  const dir = join(work, 'nginx');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'nginx.conf'),
    `worker_processes 1; daemon off; pid ${dir}/nginx.pid; error_log ${dir}/error.log;
events { worker_connections 1024; }
http { access_log off; sendfile on; tcp_nopush on; keepalive_requests 1000000;
  types { application/json json; } default_type application/json; etag on;
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fcgi; uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  server { listen 127.0.0.1:${port}; root ${siteDir}; } }\n`,
  );
  const [cmd, ...args] = pin(0, ['nginx', '-c', join(dir, 'nginx.conf'), '-p', dir]);
  const child = spawn(cmd!, args, { stdio: 'inherit' });
  children.push(child);
  for (let i = 0; i < 100 && !(await reachable(port)); i++) await new Promise((r) => setTimeout(r, 30));
  return { url: `http://127.0.0.1:${port}`, pid: child.pid!, startupMs: 0, stop: () => stopChild(child) };
}
