// npm run bench's targets up beside the embedded gateway, each when this machine has it: a gateway on
// a redis-server of its own (own-redis.ts; its GET in the same rounds), and nginx serving the same build output as
// static files (the ceiling for static bytes, for the GET and the 304).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Manifest, Pointer } from '../../build/site-format.ts';
import { type Bench, HEALTH, RECORD, REGISTER } from './context.ts';
import { probe, type Target } from './load.ts';
import { startOwnRedis } from './own-redis.ts';
import { type Running, startGateway, startNginx } from './servers.ts';

/** Limits out of the way for the throughput scenarios. */
export const UNLIMITED = { RATE_LIMIT_PER_HOUR: '1000000000', REGISTER_LIMIT_PER_HOUR: '1000000000' };

export const register = (url: string, email: string) =>
  probe(url, REGISTER, { 'content-type': 'application/json' }, 'POST', JSON.stringify({ email }));

/** A gateway on Redis with 1,000 registered keys, or null when redis-server is not installed; `stop` stops both. */
export async function redisBeside(
  b: Bench,
  siteDir: string,
): Promise<{ target: Target; stop(): Promise<void> } | null> {
  const redis = await startOwnRedis(b);
  if (!redis) return null;
  const prefix = `gg:bench:${process.pid}:`;
  const gateway: Running = await startGateway(b, {
    STATE_DIR: join(b.work, 'state-r'),
    SITE_DIR: siteDir,
    REDIS_URL: redis.url,
    REDIS_KEY_PREFIX: prefix,
    ...UNLIMITED,
  });
  for (let i = 0; i < 50 && (await probe(gateway.url, HEALTH, {})).body.toString().includes('unavailable'); i++)
    await new Promise((res) => setTimeout(res, 100));
  const redisKeys: string[] = [];
  for (let i = 0; i < 1_000; i++)
    redisKeys.push(JSON.parse((await register(gateway.url, `redis-${i}@example.com`)).body.toString()).api_key);
  const file = join(b.work, 'redis-keys.txt');
  writeFileSync(file, `${redisKeys.join('\n')}\n`);
  return {
    target: { name: 'gateway, Redis', url: gateway.url, pid: gateway.pid, load: { path: RECORD, keysFile: file } },
    async stop() {
      await gateway.stop();
      await redis.stop();
    },
  };
}

/** nginx (one worker) serving the record's plain file, as a GET target and a 304 target; null when not installed. */
export async function nginxBeside(b: Bench, siteDir: string, pointer: Pointer, manifest: Manifest) {
  if (!b.hasNginx) return null;
  const nginx = await startNginx(b, join(b.work, 'nginx'), `root ${join(siteDir, pointer.dir)};`);
  const file = `/${manifest.bodies[manifest.routes[RECORD]!]!.identity.file}`;
  const nEtag = (await probe(nginx.url, file, {})).headers.find(([k]) => k.toLowerCase() === 'etag')?.[1] ?? '';
  const name = 'nginx (1 worker)';
  return {
    get: { name, url: nginx.url, load: { path: file } } as Target,
    notModified: { name, url: nginx.url, load: { path: file, headers: { 'If-None-Match': nEtag } } } as Target,
    stop: () => nginx.stop(),
  };
}
