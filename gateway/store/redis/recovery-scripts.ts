// Recovery tokens in Redis (docs/contract.md, Getting a key back), so a link one instance mailed is
// honoured by any. Each step is one server-side script. Keys, under the prefix p (besides those
// of scripts.ts):
//   p recovery:<sha256 hex> → {account, created_at, expires_at, used_at, superseded_at}
//   p recovery-latest:<account id> → the hex of the account's newest token
//   p recovery-decoy:<sha256 hex> → {created_at, expires_at}: what an address no account holds
//     costs instead (the same writes, so every address costs the server the same), never read
// The first two expire a day after the token does; until then a used or expired token is answered
// as such. A decoy expires with its token.
import type { Redis } from 'ioredis';
import { type Recovered, type TokenState, tokenState } from '../types.ts';
import { redisKeys } from './key-names.ts';
import { LIVE_DELTA } from './scripts.ts';

const KEPT_AFTER_EXPIRY_MS = 86_400_000;

// KEYS: email → id. ARGV: token hex, now, expires at, prefix, kept ms. Returns 1, or 0 when no
// account holds the address (a decoy written instead).
const ISSUE_SCRIPT = `
local id = redis.call('GET', KEYS[1])
local p = ARGV[4]
if not id then
  local d = p .. 'recovery-decoy:' .. ARGV[1]
  redis.call('HSET', d, 'created_at', ARGV[2], 'expires_at', ARGV[3])
  redis.call('PEXPIRE', d, tonumber(ARGV[3]) - tonumber(ARGV[2]))
  return 0
end
local latest = p .. 'recovery-latest:' .. id
local old = redis.call('GET', latest)
if old then
  local k = p .. 'recovery:' .. old
  if redis.call('EXISTS', k) == 1 and not redis.call('HGET', k, 'used_at') then
    redis.call('HSET', k, 'superseded_at', ARGV[2])
  end
end
local t = p .. 'recovery:' .. ARGV[1]
local kept = tonumber(ARGV[3]) - tonumber(ARGV[2]) + tonumber(ARGV[5])
redis.call('HSET', t, 'account', id, 'created_at', ARGV[2], 'expires_at', ARGV[3])
redis.call('PEXPIRE', t, kept)
redis.call('SET', latest, ARGV[1], 'PX', kept)
return 1`;

// KEYS: the token's hash, the key sequence. ARGV: now, prefix, new key hex, new key id (random:
// scripts.ts, REGISTER_SCRIPT). Revokes every live key of the token's account (announced, as every
// revocation is) and issues the new key. Returns {outcome} or {'ok', account id, key id, email,
// keys revoked, their ids comma-separated, key count}.
const USE_SCRIPT = `
local t = redis.call('HMGET', KEYS[1], 'account', 'expires_at', 'used_at', 'superseded_at')
if not t[1] then return {'unknown'} end
if t[3] then return {'used'} end
if t[4] then return {'superseded'} end
if tonumber(ARGV[1]) >= tonumber(t[2]) then return {'expired'} end
local p = ARGV[2]
local id = t[1]
local email = redis.call('HGET', p .. 'account:' .. id, 'email')
local keys = p .. 'keys:' .. id
local all = redis.call('HGETALL', keys)
local n = 0
local ids = {}
for i = 1, #all, 2 do
  redis.call('DEL', p .. 'key:' .. all[i + 1])
  redis.call('HSET', p .. 'keyinfo:' .. all[i], 'revoked_at', ARGV[1])
  redis.call('PUBLISH', p .. 'revoked', all[i + 1])
  n = n + 1
  ids[n] = all[i]
end
redis.call('DEL', keys)
local keyId = ARGV[4]
local keyCount = redis.call('INCR', KEYS[2])
redis.call('SET', p .. 'key:' .. ARGV[3], id .. '\\t' .. keyId .. '\\t' .. email)
redis.call('HSET', keys, keyId, ARGV[3])
redis.call('SADD', p .. 'account-keys:' .. id, keyId)
redis.call('HSET', p .. 'keyinfo:' .. keyId, 'account', id, 'hash', ARGV[3], 'created_at', ARGV[1], 'n', keyCount)
redis.call('HSET', KEYS[1], 'used_at', ARGV[1])
${LIVE_DELTA('p', '1 - n')}
return {'ok', id, keyId, email, n, table.concat(ids, ','), tostring(keyCount)}`;

type RecoveryClient = Redis & {
  recoveryIssue(
    emailKey: string,
    hex: string,
    now: number,
    expiresAt: number,
    p: string,
    kept: number,
  ): Promise<number>;
  recoveryUse(token: string, keySeq: string, now: number, p: string, keyHex: string, keyId: string): Promise<string[]>;
};

/** The scripts as commands of `client` (client.ts connects it). */
export function defineRecoveryCommands(client: Redis) {
  client.defineCommand('recoveryIssue', { numberOfKeys: 1, lua: ISSUE_SCRIPT });
  client.defineCommand('recoveryUse', { numberOfKeys: 2, lua: USE_SCRIPT });
}

/** Digests arrive as hex (digestHex); `guard` runs each command (the outage check, its timing). */
export function redisRecovery(
  redis: Redis,
  prefix: string,
  guard: <T>(run: () => Promise<T>) => Promise<T>,
): {
  issue(email: string, hex: string, now: number, expiresAt: number): Promise<boolean>;
  state(hex: string, now: number): Promise<TokenState>;
} {
  const client = redis as RecoveryClient;
  const k = redisKeys(prefix);
  return {
    issue: (email, hex, now, expiresAt) =>
      guard(async () => {
        const done = await client.recoveryIssue(k.email(email), hex, now, expiresAt, prefix, KEPT_AFTER_EXPIRY_MS);
        return done === 1;
      }),
    state: (hex, now) =>
      guard(async () => {
        const [account, expires, used, superseded] = await redis.hmget(
          k.recovery(hex),
          'account',
          'expires_at',
          'used_at',
          'superseded_at',
        );
        if (account === null) return 'unknown';
        const at = (v: string | null | undefined) => (v ? Number(v) : null);
        return tokenState({ expires_at: Number(expires), used_at: at(used), superseded_at: at(superseded) }, now);
      }),
  };
}

/**
 * Uses a token on `redis` (the connection that issues keys: replication.ts): what it gave, and the
 * ids of the keys it revoked, which taking its key back makes live again.
 */
export async function useToken(
  redis: Redis,
  prefix: string,
  hex: string,
  key: { hashHex: string; id: string },
  now: number,
): Promise<{ recovered: Recovered; revokedKeyIds: string[]; keyCount: number }> {
  const k = redisKeys(prefix);
  const r = await (redis as RecoveryClient).recoveryUse(k.recovery(hex), k.keySeq, now, prefix, key.hashHex, key.id);
  if (r[0] !== 'ok') return { recovered: r[0] as Exclude<Recovered, object>, revokedKeyIds: [], keyCount: 0 };
  return {
    recovered: { account: { id: String(r[1]), keyId: String(r[2]), email: String(r[3]) }, revoked: Number(r[4]) },
    revokedKeyIds: r[5] ? String(r[5]).split(',') : [],
    keyCount: Number(r[6]),
  };
}
