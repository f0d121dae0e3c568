// The requests clients and CDNs really send, against what serves the same bytes best: the
// br-encoded 200 (Accept-Encoding: br, gzip) and the 304 (If-None-Match with the current ETag),
// and the identity 200 the rest of the bench measures, for comparison. Each is answered by the
// gateway, by a bare node:http server and by one nginx worker, the last two replaying the
// gateway's own status, headers and bytes for that request (captured first). Measured two ways:
// alternated rounds (req/s, each server alone on CPU 0) and every server loaded at once (CPU time
// a request, compared within each round), the figure to judge a ratio by on a shared machine
// (docs/performance.md, Method).
import { readFileSync } from 'node:fs';
import { type Bench, NGINX_MISSING } from './context.ts';
import { type AtOnce, atOnceRatio, type Load, probe, type Result, rounds, type Target, together } from './load.ts';
import { type Captured, startNginxReplay } from './replay.ts';
import { type Running, startBare } from './servers.ts';

export const GATEWAY = 'gateway';
export const BARE = 'bare node:http';
export const NGINX = 'nginx (1 worker)';

export interface RealCase {
  name: string;
  /** The gateway's answer, as the replaying servers send it. */
  sample: Captured;
  alternated: Map<string, Result>;
  atOnce: AtOnce;
}

const header = (c: Captured, name: string) => c.headers.find(([k]) => k.toLowerCase() === name)?.[1];

/** One request clients send: its name, the gateway's answer to it, and the load that repeats it. */
export type RealLoad = [name: string, sample: Captured, load: Load];

/**
 * The three requests, each asked of `gateway` once with the first key of `keysFile` (the 304 with
 * the ETag the gateway gave), checked, and paired with the load that repeats it with every key.
 */
export async function captureRealLoads(gateway: Running, keysFile: string, path: string): Promise<RealLoad[]> {
  const key = readFileSync(keysFile, 'utf8').split('\n')[0]!;
  const br = { 'Accept-Encoding': 'br, gzip' };
  const brSample = await probe(gateway.url, path, { 'x-api-key': key, ...br });
  if (brSample.status !== 200 || header(brSample, 'content-encoding') !== 'br')
    throw new Error(`expected a br-encoded 200, got ${brSample.status} ${header(brSample, 'content-encoding')}`);
  const etag = header(brSample, 'etag')!;
  const revalidate = { ...br, 'If-None-Match': etag };
  const nmSample = await probe(gateway.url, path, { 'x-api-key': key, ...revalidate });
  if (nmSample.status !== 304) throw new Error(`expected a 304, got ${nmSample.status}`);
  const idSample = await probe(gateway.url, path, { 'x-api-key': key });
  if (idSample.status !== 200) throw new Error(`expected an identity 200, got ${idSample.status}`);
  return [
    ['br-encoded 200', brSample, { path, keysFile, headers: br }],
    ['304 (If-None-Match, br)', { ...nmSample, body: Buffer.alloc(0) }, { path, keysFile, headers: revalidate }],
    ['identity 200', idSample, { path, keysFile }],
  ];
}

export async function realRequests(b: Bench, gateway: Running, keysFile: string, path: string): Promise<RealCase[]> {
  const cases = await captureRealLoads(gateway, keysFile, path);
  const nginx = b.hasNginx
    ? await startNginxReplay(b, new Map(cases.map(([, sample], i) => [`/replay-${i}`, sample])))
    : null;
  if (!nginx) console.error(NGINX_MISSING);
  const out: RealCase[] = [];
  for (const [i, [name, sample, load]] of cases.entries()) {
    const bare = await startBare(b, sample.status, sample.headers, sample.body);
    const targets: Target[] = [
      { name: GATEWAY, url: gateway.url, pid: gateway.pid, load },
      { name: BARE, url: bare.url, pid: bare.pid, load },
    ];
    if (nginx)
      targets.push({ name: NGINX, url: nginx.url, pid: nginx.workerPid, load: { ...load, path: `/replay-${i}` } });
    const alternated = await rounds(b, targets);
    const atOnce = await together(b, targets, b.atOnceRounds);
    await bare.stop();
    out.push({ name, sample, alternated, atOnce });
    for (const t of targets.slice(1))
      console.error(
        `${name.padEnd(28)} gateway ÷ ${t.name}, at once: ${atOnceRatio(atOnce, t.name, GATEWAY).median.toFixed(2)}`,
      );
  }
  await nginx?.stop();
  return out;
}
