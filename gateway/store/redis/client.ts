// The Redis connection as the store uses it: fail-fast options (no offline queue, a command
// timeout, reconnection every 2 s at most) and the server-side scripts (scripts.ts) as
// commands. Through Sentinel (docs/operations.md, Redis in production) each connection asks the
// sentinels for the primary and checks that the server it reached is one (the client's ready
// check); it asks again when the connection drops, on a READONLY answer, and when the gateway's
// look at the server finds it demoted (watch.ts), so it never stays on a replica or on an old
// primary that came back.
import { Redis, type RedisOptions } from 'ioredis';
import type { RedisTarget } from '../../config.ts';
import { MERGE_WINDOW_SCRIPT, REASSERT_KEY_SCRIPT } from './failover-scripts.ts';
import { FLAG_LOSS_SCRIPT, IDENTITY_SCRIPT } from './identity-scripts.ts';
import { defineRecoveryCommands } from './recovery-scripts.ts';
import {
  ADD_USAGE_SCRIPT,
  LIVE_KEYS_SCRIPT,
  MIGRATE_SCRIPT,
  REFUND_SCRIPT,
  REGISTER_SCRIPT,
  REVOKE_ACCOUNT_SCRIPT,
  REVOKE_KEY_SCRIPT,
  WITHDRAW_SCRIPT,
} from './scripts.ts';
import { watchSentinels } from './sentinel-watch.ts';

export type Scripted = Redis & {
  refundWindow(key: string, info: string, start: number, touch: string): Promise<number>;
  registerKey(
    emailKey: string,
    seq: string,
    accounts: string,
    keySeq: string,
    email: string,
    hash: string,
    now: number,
    prefix: string,
    maxLive: number,
    rotate: string,
    accountId: string,
    keyId: string,
  ): Promise<[string, string, string, string, string]>;
  reassertKey(...args: (string | number)[]): Promise<number>;
  mergeWindow(window: string, info: string, start: number, seen: number, now: number, win: number): Promise<number>;
  withdrawKey(prefix: string, hash: string, revokedKeyIds: string, token: string, now: number): Promise<number>;
  storeIdentity(
    marker: string,
    seq: string,
    keySeq: string,
    looked: string,
    now: number,
    fresh: string,
  ): Promise<string[]>;
  flagLoss(
    marker: string,
    seq: string,
    keySeq: string,
    id: string,
    accounts: number,
    keys: number,
    now: number,
    seenId: string,
    seenSeq: string,
    seenKeySeq: string,
  ): Promise<number>;
  revokeKey(keyEntry: string, now: number, prefix: string, hash: string): Promise<number>;
  revokeAccount(emailKey: string, now: number, prefix: string, keyId: string): Promise<number>;
  migrateKeys(accounts: string, seq: string, keySeq: string, prefix: string): Promise<number>;
  liveKeys(count: string, accounts: string, prefix: string): Promise<number>;
  addUsage(
    info: string,
    window: string,
    requests: number,
    last: number,
    start: number,
    now: number,
    win: number,
  ): Promise<number>;
};

/** The server's address as this connection reached it: what Sentinel resolved, or REDIS_URL's. */
export function primaryOf(client: Scripted) {
  const s = (client as unknown as { stream?: import('node:net').Socket }).stream;
  if (!s?.remoteAddress) return null;
  const host = s.remoteAddress.replace(/^::ffff:/, '');
  return `${host.includes(':') ? `[${host}]` : host}:${s.remotePort}`;
}

/** Where a connection goes, for the log and /health: never a password. */
export function describeTarget(target: RedisTarget): string {
  if (target.kind === 'sentinel')
    return `the primary "${target.name}" of sentinels ${target.sentinels.map((s) => `${s.host}:${s.port}`).join(',')}`;
  return new URL(target.url).host;
}

export function connect(target: RedisTarget, commandTimeout: number): Scripted {
  const options: RedisOptions = {
    enableOfflineQueue: false, // while disconnected, fail at once: no unbounded queue
    maxRetriesPerRequest: 0,
    commandTimeout, // no hang on a server that stopped answering
    connectTimeout: 2_000,
    retryStrategy: (times) => Math.min(100 * times, 2_000), // keep trying, every 2 s at most
    lazyConnect: false,
  };
  const client = (
    target.kind === 'url'
      ? new Redis(target.url, options)
      : new Redis({
          ...options,
          sentinels: target.sentinels.map((s) => ({ host: s.host, port: s.port })),
          name: target.name,
          ...(target.password === null ? {} : { password: target.password }),
          ...(target.sentinelPassword === null ? {} : { sentinelPassword: target.sentinelPassword }),
          role: 'master',
          // no failoverDetector: its connections to the sentinels outlive the client's own close
          // (measured), and a demotion is seen anyway (above)
          sentinelRetryStrategy: (times) => Math.min(100 * times, 2_000),
          // a primary demoted under us answers READONLY: ask the sentinels again (the command is
          // not resent: it failed, and its caller answers or counts locally as in an outage)
          reconnectOnError: (err) => (err.message.startsWith('READONLY') ? 1 : false),
        })
  ) as Scripted;
  client.defineCommand('registerKey', { numberOfKeys: 4, lua: REGISTER_SCRIPT });
  client.defineCommand('refundWindow', { numberOfKeys: 2, lua: REFUND_SCRIPT });
  client.defineCommand('revokeKey', { numberOfKeys: 1, lua: REVOKE_KEY_SCRIPT });
  client.defineCommand('revokeAccount', { numberOfKeys: 1, lua: REVOKE_ACCOUNT_SCRIPT });
  client.defineCommand('migrateKeys', { numberOfKeys: 3, lua: MIGRATE_SCRIPT });
  client.defineCommand('addUsage', { numberOfKeys: 2, lua: ADD_USAGE_SCRIPT });
  client.defineCommand('liveKeys', { numberOfKeys: 2, lua: LIVE_KEYS_SCRIPT });
  client.defineCommand('withdrawKey', { numberOfKeys: 0, lua: WITHDRAW_SCRIPT });
  client.defineCommand('storeIdentity', { numberOfKeys: 4, lua: IDENTITY_SCRIPT });
  client.defineCommand('flagLoss', { numberOfKeys: 3, lua: FLAG_LOSS_SCRIPT });
  client.defineCommand('reassertKey', { numberOfKeys: 0, lua: REASSERT_KEY_SCRIPT });
  client.defineCommand('mergeWindow', { numberOfKeys: 2, lua: MERGE_WINDOW_SCRIPT });
  defineRecoveryCommands(client);
  client.on('error', () => {}); // reported through the state events below
  return client;
}

/** Redis's answers that no retry mends: a wrong or missing password. */
const REFUSED = /^(WRONGPASS|NOAUTH|ERR AUTH|ERR invalid password)/;

/**
 * A client for a short-lived tool (npm run accounts): resolves once connected, or fails with Redis's
 * or the sentinels' own words (a wrong password at once; else after `timeoutMs`, with the last error
 * and, through Sentinel, what each sentinel said).
 */
export async function openRedisClient(target: RedisTarget, timeoutMs = 5_000): Promise<Scripted> {
  const client = connect(target, timeoutMs);
  let last: string | null = null;
  const where = describeTarget(target);
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no answer from Redis at ${where} within ${timeoutMs} ms`)),
        timeoutMs,
      );
      client.on('error', (err: Error) => {
        last = err.message;
        if (!REFUSED.test(err.message)) return;
        clearTimeout(timer);
        reject(new Error(`Redis at ${where} refused the connection: ${err.message}`));
      });
      client.once('ready', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    return client;
  } catch (err) {
    client.disconnect();
    const why = target.kind === 'sentinel' ? await askSentinels(target) : null;
    const more = why ?? last;
    throw new Error(`${(err as Error).message}${more && !(err as Error).message.includes(more) ? `: ${more}` : ''}`);
  }
}

/** What the sentinels say when none names a primary (sentinel-watch.ts), or null. */
async function askSentinels(target: Extract<RedisTarget, { kind: 'sentinel' }>): Promise<string | null> {
  const watch = watchSentinels({ target, onSwitch: () => {}, log: () => {} });
  try {
    await watch.ask();
    return watch.problem();
  } finally {
    watch.close();
  }
}

/**
 * The commands of all requests handled in one turn of the event loop leave in one write: the
 * socket is corked at the first and uncorked after the turn (a write syscall per request was a
 * large part of a request's CPU in Redis mode: docs/performance.md, the measurements behind the
 * code). Call the result before each command.
 */
export function writeCoalescer(client: Scripted): () => void {
  let corked = false;
  return () => {
    const socket = (client as unknown as { stream?: import('node:net').Socket }).stream;
    if (corked || !socket || socket.destroyed) return;
    corked = true;
    socket.cork();
    setImmediate(() => {
      corked = false;
      socket.uncork();
    });
  };
}
