// nginx answering a request as the gateway answered it: the same status, headers and body bytes,
// captured from the gateway, so that what differs between the two is the server's own work. One
// worker, like the one core the gateway gets. A 304 is answered when If-None-Match names the
// ETag, and is otherwise a 412 (a load that went wrong shows as errors, not as a fast server).
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Bench } from './context.ts';
import { type Running, startNginx } from './servers.ts';

export interface Captured {
  status: number;
  /** [name, value] as the gateway sent them, without Date and the connection's own. */
  headers: [string, string][];
  body: Buffer;
}

/** Written by nginx itself, or refused by it (it sends a 304's Content-Type as any other). */
const NGINX_OWN = /^(content-length|content-type)$/i;
const quoted = (v: string) => `"${v.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;

function location(path: string, c: Captured, dir: string, name: string): string {
  const type = c.headers.find(([k]) => /^content-type$/i.test(k))?.[1];
  const add = c.headers
    .filter(([k]) => !NGINX_OWN.test(k))
    .map(([k, v]) => `    add_header ${k} ${quoted(v)};`)
    .join('\n');
  if (c.status === 304) {
    const etag = c.headers.find(([k]) => /^etag$/i.test(k))![1];
    return `  location = ${path} {
${add}
    if ($http_if_none_match != ${quoted(etag)}) { return 412; }
    return 304;
  }`;
  }
  const file = join(dir, `${name}.body`);
  writeFileSync(file, c.body);
  return `  location = ${path} {
    alias ${file};
    types { } default_type ${quoted(type ?? 'application/octet-stream')};
    etag off; max_ranges 0; add_header Last-Modified "";
${add}
  }`;
}

/** nginx, one worker, a location per captured answer (path → answer). */
export async function startNginxReplay(
  b: Bench,
  answers: Map<string, Captured>,
): Promise<Running & { workerPid: number }> {
  const dir = join(b.work, `nginx-replay-${Math.random().toString(36).slice(2)}`);
  mkdirSync(dir, { recursive: true });
  const locations = [...answers].map(([path, c], i) => location(path, c, dir, `answer-${i}`)).join('\n');
  const nginx = await startNginx(b, dir, `server_tokens off;\n  ${locations.trimStart()}`);
  const worker = spawnSync('pgrep', ['-P', String(nginx.pid)], { encoding: 'utf8' })
    .stdout.trim()
    .split('\n')[0];
  return { ...nginx, workerPid: Number(worker) };
}
