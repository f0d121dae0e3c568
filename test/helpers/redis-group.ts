// A Sentinel group of the test's own (docs/operations.md, Redis in production): a primary and a
// replica with append-only files, and three sentinels that fail over after a second of silence.
// Every process on a port of its own; one group per test file keeps the suite's cost down.
import { Redis } from 'ioredis';
import { type PrivateRedis, startPrivateRedis } from './redis.ts';

export const GROUP_NAME = 'grain-keys';

export interface RedisGroup {
  /** The servers, by the role they started in (after a failover, the replica is the primary). */
  first: PrivateRedis;
  second: PrivateRedis;
  sentinels: PrivateRedis[];
  /** REDIS_SENTINELS's value for this group. */
  sentinelList: string;
  /** The port the sentinels name as the primary now. */
  primaryPort(): Promise<number>;
  /** The role a server says it has ('master', 'slave'). */
  roleOf(server: PrivateRedis): Promise<string>;
  stop(): Promise<void>;
}

/** Asks one server a question and hangs up. */
export async function ask<T>(port: number, question: (r: Redis) => Promise<T>): Promise<T> {
  const r = new Redis({
    port,
    host: '127.0.0.1',
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  r.on('error', () => {});
  try {
    await r.connect();
    return await question(r);
  } finally {
    r.disconnect();
  }
}

export async function startRedisGroup(): Promise<RedisGroup> {
  const first = await startPrivateRedis();
  const second = await startPrivateRedis({ args: ['--replicaof', '127.0.0.1', String(first.port)] });
  const sentinelConf = [
    `sentinel monitor ${GROUP_NAME} 127.0.0.1 ${first.port} 2`,
    `sentinel down-after-milliseconds ${GROUP_NAME} 1000`,
    `sentinel failover-timeout ${GROUP_NAME} 5000`,
    `sentinel parallel-syncs ${GROUP_NAME} 1`,
  ].join('\n');
  const sentinels = await Promise.all([1, 2, 3].map(() => startPrivateRedis({ sentinel: sentinelConf })));
  const primaryPort = async () => {
    const [, port] = (await ask(sentinels[0]!.port, (r) =>
      r.call('SENTINEL', 'get-master-addr-by-name', GROUP_NAME),
    )) as [string, string];
    return Number(port);
  };
  return {
    first,
    second,
    sentinels,
    sentinelList: sentinels.map((s) => `127.0.0.1:${s.port}`).join(','),
    primaryPort,
    roleOf: (server) => ask(server.port, async (r) => ((await r.call('ROLE')) as string[])[0]!),
    async stop() {
      await Promise.all([first, second, ...sentinels].map((s) => s.stop()));
    },
  };
}
