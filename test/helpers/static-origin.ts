// A plain static file server standing in for the upstream origin (any static host serving the
// build output). It can be made slow, refuse some files, or be stopped, to test the gateway's 504 and 502.

import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, normalize } from 'node:path';

export interface StaticOrigin {
  url: string;
  requests: { path: string; headers: Record<string, unknown> }[];
  delayMs: number;
  /** The paths it answers 404, as if missing (a file the gateway could not read when it loaded the build). */
  refuse: (path: string) => boolean;
  /** Labels the .gz files with `Content-Encoding: gzip`, as some static hosts do. */
  labelGzip: boolean;
  close(): Promise<void>;
}

export async function startStaticOrigin(root: string): Promise<StaticOrigin> {
  const origin: StaticOrigin = {
    url: '',
    requests: [],
    delayMs: 0,
    refuse: () => false,
    labelGzip: false,
    close: async () => {},
  };
  const server: Server = createServer(async (req, res) => {
    origin.requests.push({ path: req.url ?? '', headers: req.headers });
    if (origin.delayMs) await new Promise((r) => setTimeout(r, origin.delayMs));
    const path = normalize(decodeURIComponent((req.url ?? '/').split('?')[0]!));
    if (path.includes('..')) return void res.writeHead(400).end();
    if (origin.refuse(path)) return void res.writeHead(404).end('not found');
    try {
      const body = await readFile(join(root, path));
      res.writeHead(200, {
        'content-type': 'application/octet-stream',
        'content-length': body.length,
        etag: '"origin-etag"',
        ...(origin.labelGzip && path.endsWith('.gz') ? { 'content-encoding': 'gzip' } : {}),
      });
      res.end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  origin.close = () =>
    new Promise((r) => {
      server.close(() => r());
      server.closeAllConnections();
    });
  return origin;
}
