// The store's identity in Redis, and the loss flag (identity.ts judges them; docs/operations.md,
// Redis in production). Keys, under the prefix p:
//   p store → {id, created_at, accepted_loss_at}: which data set this is, made once by the first
//     gateway on an empty store, and made anew only by an operator accepting a loss;
//     {id, state: "lost", accounts, keys, since} while a gateway has found the data lost (the id
//     and the account and key sequences' high-water marks the data should have).
// A restore from Redis's files brings back the first form, and so the gateways see the data again.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { redisKeys } from './key-names.ts';

// KEYS: the marker, the account sequence, the key sequence, the data's last look. ARGV: now, an id
// to make the marker with when there is none ('' to make none: a gateway that knew the store must
// not take an empty one for a new one). Returns {id, state, accepted_loss_at, accounts, keys, since,
// seq, key seq, made, last look}, '' for what is absent. The last look is when a gateway last
// looked at this data (the latest of all of them): a replica holds it as of its last replicated
// write, so a failover's new primary shows a recent one and a copy restored from a backup an old
// one (identity.ts tells a switch from a loss by it).
export const IDENTITY_SCRIPT = `
local m = redis.call('HMGET', KEYS[1], 'id', 'state', 'accepted_loss_at', 'accounts', 'keys', 'since')
local made = '0'
if (not m[1]) and ARGV[2] ~= '' then
  redis.call('HSET', KEYS[1], 'id', ARGV[2], 'created_at', ARGV[1])
  m[1] = ARGV[2]
  made = '1'
end
local looked = redis.call('GET', KEYS[4]) or ''
if (tonumber(looked) or 0) < tonumber(ARGV[1]) then redis.call('SET', KEYS[4], ARGV[1]) end
return {m[1] or '', m[2] or '', m[3] or '', m[4] or '', m[5] or '', m[6] or '',
  redis.call('GET', KEYS[2]) or '0', redis.call('GET', KEYS[3]) or '0', made, looked}`;

// KEYS: the marker, the account sequence, the key sequence. ARGV: the id the data should have, the
// account and key high-water marks, now, and the marker's id and the two sequences as the look read
// them. Flags the data lost, so a gateway started later knows it too; a flag already there keeps
// its id and time and takes the higher marks. Nothing is written when the data changed since the
// look read it (a restore, or an operator's acceptance, in between): the next look judges again.
// Returns 1 when this call flagged it.
export const FLAG_LOSS_SCRIPT = `
local m = redis.call('HMGET', KEYS[1], 'id', 'state')
if m[2] == 'lost' then
  local a = tonumber(redis.call('HGET', KEYS[1], 'accounts')) or 0
  local k = tonumber(redis.call('HGET', KEYS[1], 'keys')) or 0
  redis.call('HSET', KEYS[1], 'accounts', math.max(a, tonumber(ARGV[2])), 'keys', math.max(k, tonumber(ARGV[3])))
  return 0
end
if (m[1] or '') ~= ARGV[5] or (redis.call('GET', KEYS[2]) or '0') ~= ARGV[6]
  or (redis.call('GET', KEYS[3]) or '0') ~= ARGV[7] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'state', 'lost', 'accounts', ARGV[2], 'keys', ARGV[3], 'since', ARGV[4])
return 1`;

// KEYS: the marker, the account sequence, the key sequence. ARGV: a new id, now. The operator's
// acceptance of a loss (npm run accounts -- accept-loss): the sequences move past every id the
// lost data had used, so no new account or key takes a lost one's id, and the store gets a new
// identity that says when. Refused (returns {'not_lost'}) while the marker says nothing was
// lost; with no marker at all (the data went while no gateway was watching) it is accepted.
// Returns {'accepted', accounts mark, keys mark}.
const ACCEPT_LOSS_SCRIPT = `
local m = redis.call('HMGET', KEYS[1], 'id', 'state', 'accounts', 'keys')
if m[1] and m[2] ~= 'lost' then return {'not_lost'} end
local a = tonumber(m[3]) or 0
local k = tonumber(m[4]) or 0
if (tonumber(redis.call('GET', KEYS[2])) or 0) < a then redis.call('SET', KEYS[2], a) end
if (tonumber(redis.call('GET', KEYS[3])) or 0) < k then redis.call('SET', KEYS[3], k) end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'created_at', ARGV[2], 'accepted_loss_at', ARGV[2])
return {'accepted', tostring(a), tostring(k)}`;

/** The operator's acceptance of a loss (ACCEPT_LOSS_SCRIPT), with the marks the sequences moved past. */
export async function acceptLoss(
  client: Redis,
  prefix: string,
  now: number,
): Promise<{ accepted: boolean; accounts: number; keys: number }> {
  const k = redisKeys(prefix);
  const r = (await client.eval(
    ACCEPT_LOSS_SCRIPT,
    3,
    k.marker,
    k.accountSeq,
    k.keySeq,
    randomBytes(12).toString('hex'),
    now,
  )) as string[];
  return { accepted: r[0] === 'accepted', accounts: Number(r[1] ?? 0), keys: Number(r[2] ?? 0) };
}
