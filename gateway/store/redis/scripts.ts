// The Redis store's server-side scripts: each is one atomic step, so instances never race
// (docs/contract.md, Storage and scale). Keys, under the prefix p:
//   p email:<email> → account id        p account:<id> → {email, created_at}    p accounts (zset)
//   p key:<sha256 hex> → "<account id>\t<key id>\t<email>" (live keys only)
//   p keys:<account id> → {key id: sha256 hex} (its live keys); p account-keys:<id>: every key id
//   p keyinfo:<key id> → {account, hash, created_at, n (the key count at its issue: the order of
//     issue, since ids are random), revoked_at, last_used, requests}
//   p live-keys → how many keys are live (made by LIVE_KEYS_SCRIPT, kept by the others once made)
//   p window:<kind>:<subject> → {start, count, last}: a key's hour (req) or an address's (reg)
//   p seq, p seq:key: the account and key sequences; p revoked: revocations announced (key hash)

// KEYS: window, the subject's info hash. ARGV: the window's start, touch. Takes back one request
// the window counted (one the service failed to answer), in that same window only; with touch, from
// the key's total too.
export const REFUND_SCRIPT = `
local s = redis.call('HMGET', KEYS[1], 'start', 'count')
if tonumber(s[1]) ~= tonumber(ARGV[1]) or (tonumber(s[2]) or 0) < 1 then return 0 end
redis.call('HINCRBY', KEYS[1], 'count', -1)
if ARGV[2] == '1' and redis.call('EXISTS', KEYS[2]) == 1 then redis.call('HINCRBY', KEYS[2], 'requests', -1) end
return 1`;

// KEYS: a key's info hash, its window. ARGV: requests, last use, the local window's start, now,
// window ms. Adds requests an instance counted in its own memory while Redis was away (outage.ts)
// to the key's total (while it still has its info; the later use wins) and to its hour: the open
// window in Redis, or, when none is open, the instance's own window while its hour lasts. So after
// an outage a key's usage is what it really spent, not N instances × the limit.
export const ADD_USAGE_SCRIPT = `
local n = tonumber(ARGV[1]); local now = tonumber(ARGV[4]); local win = tonumber(ARGV[5])
local start = tonumber(ARGV[3])
if now < start + win then
  local open = tonumber(redis.call('HGET', KEYS[2], 'start'))
  if open and now < open + win then
    redis.call('HINCRBY', KEYS[2], 'count', n)
  else
    redis.call('HSET', KEYS[2], 'start', start, 'count', n)
    redis.call('PEXPIRE', KEYS[2], start + win - now + 60000)
  end
end
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HINCRBY', KEYS[1], 'requests', n)
local last = tonumber(redis.call('HGET', KEYS[1], 'last_used'))
if (not last) or tonumber(ARGV[2]) > last then redis.call('HSET', KEYS[1], 'last_used', ARGV[2]) end
return 1`;

// The live-key count is made once from the accounts' key lists, then kept by every script that
// issues or revokes (only once it exists, so it is never made from a partial count).
export const LIVE_DELTA = (p: string, delta: string) =>
  `if redis.call('EXISTS', ${p} .. 'live-keys') == 1 then redis.call('INCRBY', ${p} .. 'live-keys', ${delta}) end`;

// KEYS: the count, accounts zset. ARGV: prefix. Returns how many keys are live.
export const LIVE_KEYS_SCRIPT = `
local n = redis.call('GET', KEYS[1])
if n then return tonumber(n) end
local total = 0
for _, id in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
  total = total + redis.call('HLEN', ARGV[1] .. 'keys:' .. id)
end
redis.call('SET', KEYS[1], total)
return total`;

// KEYS: email → id, account sequence, accounts zset, key sequence. ARGV: email, new key hash, now,
// prefix, live keys allowed, hash of a presented key ('' if none), an id for the account if it is
// new, the new key's id. Issues a key to the account (created on first use) and revokes nothing,
// except the presented key when it is a live key of this same account (a rotation). The ids are
// the gateway's random ones, so a key re-asserted on a new primary after a failover can never take
// an id another gateway issued there meanwhile (journal.ts); the sequences only count, for the
// watch's marks (identity.ts). Returns {account id, key id, rotated key id or '', account count,
// key count}, key id '' past the bound.
export const REGISTER_SCRIPT = `
local p = ARGV[4]
local id = redis.call('GET', KEYS[1])
if not id then
  id = ARGV[7]
  redis.call('INCR', KEYS[2])
  redis.call('SET', KEYS[1], id)
  redis.call('HSET', p .. 'account:' .. id, 'email', ARGV[1], 'created_at', ARGV[3])
  redis.call('ZADD', KEYS[3], tonumber(ARGV[3]), id)
end
local keys = p .. 'keys:' .. id
local old = nil
if ARGV[6] ~= '' then
  local v = redis.call('GET', p .. 'key:' .. ARGV[6])
  if v then
    local acct, kid = string.match(v, '^([^\\t]+)\\t([^\\t]+)\\t')
    if acct == id then old = kid end
  end
end
if (not old) and redis.call('HLEN', keys) >= tonumber(ARGV[5]) then return {id, '', '', '0', '0'} end
local keyId = ARGV[8]
local keyCount = redis.call('INCR', KEYS[4])
redis.call('SET', p .. 'key:' .. ARGV[2], id .. '\\t' .. keyId .. '\\t' .. ARGV[1])
redis.call('HSET', keys, keyId, ARGV[2])
redis.call('SADD', p .. 'account-keys:' .. id, keyId)
redis.call('HSET', p .. 'keyinfo:' .. keyId, 'account', id, 'hash', ARGV[2], 'created_at', ARGV[3], 'n', keyCount)
if old then
  redis.call('DEL', p .. 'key:' .. ARGV[6])
  redis.call('HDEL', keys, old)
  redis.call('HSET', p .. 'keyinfo:' .. old, 'revoked_at', ARGV[3])
  redis.call('PUBLISH', p .. 'revoked', ARGV[6])
else
  ${LIVE_DELTA('p', '1')}
end
return {id, keyId, old or '', redis.call('GET', KEYS[2]) or '0', tostring(keyCount)}`;

// KEYS: none (the names are made from the prefix). ARGV: prefix, new key hash, the ids of the keys
// its issue revoked (a rotation's one, a recovery's all; comma-separated, '' for none), hash of the
// recovery token used (''), now. Takes back a key that too few replicas acknowledged
// (replication.ts): the new key is revoked, the keys its issue revoked are live again and a recovery
// link works again, so the refused request changed nothing a client holds. Returns 1 when the new
// key was still live.
export const WITHDRAW_SCRIPT = `
local p = ARGV[1]
local v = redis.call('GET', p .. 'key:' .. ARGV[2])
if not v then return 0 end
local acct, kid, email = string.match(v, '^([^\\t]+)\\t([^\\t]+)\\t(.*)$')
redis.call('DEL', p .. 'key:' .. ARGV[2])
redis.call('HDEL', p .. 'keys:' .. acct, kid)
redis.call('HSET', p .. 'keyinfo:' .. kid, 'revoked_at', ARGV[5])
redis.call('PUBLISH', p .. 'revoked', ARGV[2])
local delta = -1
for old in string.gmatch(ARGV[3], '[^,]+') do
  local info = p .. 'keyinfo:' .. old
  local hash = redis.call('HGET', info, 'hash')
  if hash then
    redis.call('SET', p .. 'key:' .. hash, acct .. '\\t' .. old .. '\\t' .. email)
    redis.call('HSET', p .. 'keys:' .. acct, old, hash)
    redis.call('HDEL', info, 'revoked_at')
    delta = delta + 1
  end
end
if ARGV[4] ~= '' then redis.call('HDEL', p .. 'recovery:' .. ARGV[4], 'used_at') end
${LIVE_DELTA('p', 'delta')}
return 1`;

// KEYS: the key's entry. ARGV: now, prefix, key hash. Returns 1 when a live key was revoked.
export const REVOKE_KEY_SCRIPT = `
local v = redis.call('GET', KEYS[1])
if not v then return 0 end
local acct, kid = string.match(v, '^([^\\t]+)\\t([^\\t]+)\\t')
redis.call('DEL', KEYS[1])
redis.call('HDEL', ARGV[2] .. 'keys:' .. acct, kid)
redis.call('HSET', ARGV[2] .. 'keyinfo:' .. kid, 'revoked_at', ARGV[1])
redis.call('PUBLISH', ARGV[2] .. 'revoked', ARGV[3])
${LIVE_DELTA('ARGV[2]', '-1')}
return 1`;

// KEYS: email → id. ARGV: now, prefix, key id ('' for all the account's keys). Returns how many
// live keys were revoked (the operators' revoke).
export const REVOKE_ACCOUNT_SCRIPT = `
local id = redis.call('GET', KEYS[1])
if not id then return 0 end
local keys = ARGV[2] .. 'keys:' .. id
local all = redis.call('HGETALL', keys)
local n = 0
for i = 1, #all, 2 do
  local kid, hex = all[i], all[i + 1]
  if ARGV[3] == '' or ARGV[3] == kid then
    redis.call('DEL', ARGV[2] .. 'key:' .. hex)
    redis.call('HDEL', keys, kid)
    redis.call('HSET', ARGV[2] .. 'keyinfo:' .. kid, 'revoked_at', ARGV[1])
    redis.call('PUBLISH', ARGV[2] .. 'revoked', hex)
    n = n + 1
  end
end
${LIVE_DELTA('ARGV[2]', '-n')}
return n`;

// KEYS: accounts zset, account sequence, key sequence. ARGV: prefix. Before keys had their own
// entries, an account held one key (account:<id>.key_hash) and its hour was counted under the
// account's id: each such key becomes key <account id>, so its window goes on counting, and the
// key sequence starts past every account id. Running it again changes nothing.
export const MIGRATE_SCRIPT = `
local p = ARGV[1]
local moved = 0
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local acct = p .. 'account:' .. id
  local hex = redis.call('HGET', acct, 'key_hash')
  if hex then
    local email = redis.call('HGET', acct, 'email')
    local issued = redis.call('HGET', acct, 'key_issued_at') or redis.call('HGET', acct, 'created_at')
    redis.call('SET', p .. 'key:' .. hex, id .. '\\t' .. id .. '\\t' .. email)
    redis.call('HSET', p .. 'keys:' .. id, id, hex)
    redis.call('SADD', p .. 'account-keys:' .. id, id)
    redis.call('HSET', p .. 'keyinfo:' .. id, 'account', id, 'hash', hex, 'created_at', issued)
    redis.call('HDEL', acct, 'key_hash', 'key_issued_at', 'revoked_at')
    moved = moved + 1
  end
end
if moved > 0 then redis.call('DEL', p .. 'live-keys') end
local top = tonumber(redis.call('GET', KEYS[2]) or '0')
if top > tonumber(redis.call('GET', KEYS[3]) or '0') then redis.call('SET', KEYS[3], top) end
return moved`;
