// The Redis connection as the store uses it: fail-fast options (no offline queue, a command
// timeout, reconnection every 2 s at most) and the server-side scripts that make counting and
// registration single atomic steps (decisions.md §5: no read-then-write races across instances).
import { Redis } from 'ioredis';

// KEYS: window. ARGV: now, limit, window ms, count (1) or peek (0).
// Returns {allowed, used, resetAt}. `now` is the gateway's clock; the window's expiry is relative
// (PEXPIRE: its length and a minute, on Redis's own clock), so it does not depend on the gateway
// and Redis hosts agreeing on the time (an absolute PEXPIREAT from a clock behind Redis's deleted
// the window as it was written, and every request opened a new one).
const WINDOW_SCRIPT = `
local now = tonumber(ARGV[1]); local limit = tonumber(ARGV[2]); local win = tonumber(ARGV[3])
local s = redis.call('HMGET', KEYS[1], 'start', 'count')
local start = tonumber(s[1]); local used = tonumber(s[2]) or 0
if (not start) or now >= start + win then start = nil; used = 0 end
if used >= limit then return {0, used, start + win} end
if ARGV[4] == '0' then return {1, used, start and (start + win) or (now + win)} end
if not start then
  start = now
  redis.call('HSET', KEYS[1], 'start', now, 'count', 1)
  redis.call('PEXPIRE', KEYS[1], win + 60000)
  used = 1
else
  used = redis.call('HINCRBY', KEYS[1], 'count', 1)
end
return {1, used, start + win}`;

// KEYS: email → id, sequence, accounts set. ARGV: email, new key hash (hex), now, prefix.
// Creates the account or replaces its key in one step: never two live keys, never none.
const REGISTER_SCRIPT = `
local id = redis.call('GET', KEYS[1])
if not id then
  id = tostring(redis.call('INCR', KEYS[2]))
  redis.call('SET', KEYS[1], id)
  redis.call('HSET', ARGV[4] .. 'account:' .. id, 'email', ARGV[1], 'created_at', ARGV[3])
  redis.call('ZADD', KEYS[3], tonumber(id), id)
end
local account = ARGV[4] .. 'account:' .. id
local old = redis.call('HGET', account, 'key_hash')
if old then redis.call('DEL', ARGV[4] .. 'key:' .. old) end
redis.call('SET', ARGV[4] .. 'key:' .. ARGV[2], id .. '\\t' .. ARGV[1])
redis.call('HSET', account, 'key_hash', ARGV[2], 'key_issued_at', ARGV[3])
redis.call('HDEL', account, 'revoked_at')
if old then redis.call('PUBLISH', ARGV[4] .. 'revoked', old) end
return id`;

// KEYS: email → id. ARGV: now, prefix. Returns 1 when a live key was revoked.
const REVOKE_SCRIPT = `
local id = redis.call('GET', KEYS[1])
if not id then return -1 end
local account = ARGV[2] .. 'account:' .. id
local old = redis.call('HGET', account, 'key_hash')
if not old then return 0 end
redis.call('DEL', ARGV[2] .. 'key:' .. old)
redis.call('HDEL', account, 'key_hash')
redis.call('HSET', account, 'revoked_at', ARGV[1])
redis.call('PUBLISH', ARGV[2] .. 'revoked', old)
return 1`;

export type Scripted = Redis & {
  window(key: string, now: number, limit: number, win: number, count: string): Promise<[number, number, number]>;
  registerAccount(
    emailKey: string,
    seq: string,
    set: string,
    email: string,
    hash: string,
    now: number,
    prefix: string,
  ): Promise<string>;
  revokeAccount(emailKey: string, now: number, prefix: string): Promise<number>;
};

export function connect(url: string, commandTimeout: number): Scripted {
  const client = new Redis(url, {
    enableOfflineQueue: false, // while disconnected, fail at once: no unbounded queue
    maxRetriesPerRequest: 0,
    commandTimeout, // no hang on a server that stopped answering
    connectTimeout: 2_000,
    retryStrategy: (times) => Math.min(100 * times, 2_000), // keep trying, every 2 s at most
    lazyConnect: false,
  }) as Scripted;
  client.defineCommand('window', { numberOfKeys: 1, lua: WINDOW_SCRIPT });
  client.defineCommand('registerAccount', { numberOfKeys: 3, lua: REGISTER_SCRIPT });
  client.defineCommand('revokeAccount', { numberOfKeys: 1, lua: REVOKE_SCRIPT });
  client.on('error', () => {}); // reported through the state events below
  return client;
}

/** A client for a short-lived tool: resolves once connected, or fails after `timeoutMs`. */
export async function openRedisClient(url: string, timeoutMs = 5_000): Promise<Scripted> {
  const client = connect(url, timeoutMs);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      client.disconnect();
      reject(new Error(`no answer from Redis at ${new URL(url).host} within ${timeoutMs} ms`));
    }, timeoutMs);
    client.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  return client;
}
