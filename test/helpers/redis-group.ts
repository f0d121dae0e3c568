// A Sentinel group of the test's own (docs/operations.md, Redis in production): a primary and a
// replica with append-only files, and three sentinels that fail over after a second of silence.
// Every process on a port of its own; one group per test file keeps the suite's cost down.
import { Redis } from 'ioredis';
import { type PrivateRedis, startPrivateRedis } from './redis.ts';

export const GROUP_NAME = 'grain-keys';
/** Every server and sentinel of the group asks for it, as production ones do (AUTH). */
export const GROUP_PASSWORD = 'grain-test-pass';

export interface RedisGroup {
  /** The servers, by the role they started in (after a failover, the replica is the primary). */
  first: PrivateRedis;
  second: PrivateRedis;
  /** Every server: the first primary, then its replicas. */
  servers: PrivateRedis[];
  sentinels: PrivateRedis[];
  /** REDIS_SENTINELS's value for this group. */
  sentinelList: string;
  /** The port the sentinels name as the primary now. */
  primaryPort(): Promise<number>;
  /** The role a server says it has ('master', 'slave'). */
  roleOf(server: PrivateRedis): Promise<string>;
  stop(): Promise<void>;
}

/** Asks one server a question and hangs up (with `password` when it asks for one). */
export async function ask<T>(port: number, question: (r: Redis) => Promise<T>, password?: string): Promise<T> {
  const r = new Redis({
    port,
    host: '127.0.0.1',
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    ...(password ? { password } : {}),
  });
  r.on('error', () => {});
  try {
    await r.connect();
    return await question(r);
  } finally {
    r.disconnect();
  }
}

/**
 * `replicas`: how many (1 by default); `args`: more for every server (`--enable-debug-command local`
 * for DEBUG SLEEP, `--appendfsync everysec`).
 */
export async function startRedisGroup(opts: { replicas?: number; args?: string[] } = {}): Promise<RedisGroup> {
  // a replica syncs at once (Redis waits 5 s by default for more replicas to share one transfer)
  const auth = [
    ...['--requirepass', GROUP_PASSWORD, '--masterauth', GROUP_PASSWORD, '--repl-diskless-sync-delay', '0'],
    ...(opts.args ?? []),
  ];
  const first = await startPrivateRedis({ args: auth });
  const replicas = await Promise.all(
    Array.from({ length: opts.replicas ?? 1 }, () =>
      startPrivateRedis({ args: [...auth, '--replicaof', '127.0.0.1', String(first.port)] }),
    ),
  );
  const second = replicas[0]!;
  // the group is up when every replica follows the primary
  for (let i = 0; i < 100; i++) {
    const info = await ask(first.port, (r) => r.info('replication'), GROUP_PASSWORD);
    if ((info.match(/state=online/g) ?? []).length === replicas.length) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const sentinelConf = [
    `requirepass ${GROUP_PASSWORD}`,
    `sentinel monitor ${GROUP_NAME} 127.0.0.1 ${first.port} 2`,
    `sentinel auth-pass ${GROUP_NAME} ${GROUP_PASSWORD}`,
    `sentinel down-after-milliseconds ${GROUP_NAME} 1000`,
    `sentinel failover-timeout ${GROUP_NAME} 5000`,
    `sentinel parallel-syncs ${GROUP_NAME} 1`,
  ].join('\n');
  const sentinels = await Promise.all([1, 2, 3].map(() => startPrivateRedis({ sentinel: sentinelConf })));
  const primaryPort = async () => {
    const [, port] = (await ask(
      sentinels[0]!.port,
      (r) => r.call('SENTINEL', 'get-master-addr-by-name', GROUP_NAME),
      GROUP_PASSWORD,
    )) as [string, string];
    return Number(port);
  };
  return {
    first,
    second,
    servers: [first, ...replicas],
    sentinels,
    sentinelList: sentinels.map((s) => `127.0.0.1:${s.port}`).join(','),
    primaryPort,
    // a server still starting (or loading its file) has no role yet: asked again by the caller's poll
    roleOf: (server) =>
      ask(server.port, async (r) => ((await r.call('ROLE')) as string[])[0]!, GROUP_PASSWORD).catch(() => 'starting'),
    async stop() {
      await Promise.all([first, ...replicas, ...sentinels].map((s) => s.stop()));
    },
  };
}
