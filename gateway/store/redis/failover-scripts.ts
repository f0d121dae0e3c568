// The scripts a gateway runs on a new primary after a failover (docs/operations.md, Redis in
// production, "A failover is not a loss"): replication is asynchronous, so the new primary may lack
// the last writes the old one acknowledged. Each gateway re-asserts what it issued shortly before
// (journal.ts) and what it saw of each key's hour (the windows), so no key answered 201 is lost and
// no hour starts again from a lower count. Each script is idempotent: run twice, it changes nothing
// more. Keys, under the prefix p: those of scripts.ts.
import { LIVE_DELTA } from './scripts.ts';

// KEYS: none (made from the prefix). ARGV: prefix, email, the account's id, the key's id, its hash,
// created at, account count, key count (the sequences as they stood after the issue), the ids of the
// keys its issue revoked (comma-separated), the recovery token's hash ('' for none), now. Makes the
// key live again unless it is live already or was revoked since; the account is the one its address
// has on this server, made with the journal's id when it has none. The sequences never fall below
// what was counted. Returns 1 when the key had to be made again.
export const REASSERT_KEY_SCRIPT = `
local p = ARGV[1]
for i, seq in ipairs({p .. 'seq', p .. 'seq:key'}) do
  if (tonumber(redis.call('GET', seq)) or 0) < tonumber(ARGV[6 + i]) then redis.call('SET', seq, ARGV[6 + i]) end
end
local info = p .. 'keyinfo:' .. ARGV[4]
if redis.call('HEXISTS', info, 'revoked_at') == 1 or redis.call('EXISTS', p .. 'key:' .. ARGV[5]) == 1 then return 0 end
local id = redis.call('GET', p .. 'email:' .. ARGV[2])
if not id then
  id = ARGV[3]
  redis.call('SET', p .. 'email:' .. ARGV[2], id)
  redis.call('HSET', p .. 'account:' .. id, 'email', ARGV[2], 'created_at', ARGV[6])
  redis.call('ZADD', p .. 'accounts', tonumber(ARGV[6]), id)
end
redis.call('SET', p .. 'key:' .. ARGV[5], id .. '\\t' .. ARGV[4] .. '\\t' .. ARGV[2])
redis.call('HSET', p .. 'keys:' .. id, ARGV[4], ARGV[5])
redis.call('SADD', p .. 'account-keys:' .. id, ARGV[4])
redis.call('HSET', info, 'account', id, 'hash', ARGV[5], 'created_at', ARGV[6], 'n', ARGV[8])
local delta = 1
for old in string.gmatch(ARGV[9], '[^,]+') do
  local oldInfo = p .. 'keyinfo:' .. old
  local hash = redis.call('HGET', oldInfo, 'hash')
  if hash and redis.call('EXISTS', p .. 'key:' .. hash) == 1 then
    redis.call('DEL', p .. 'key:' .. hash)
    redis.call('HDEL', p .. 'keys:' .. id, old)
    redis.call('HSET', oldInfo, 'revoked_at', ARGV[6])
    redis.call('PUBLISH', p .. 'revoked', hash)
    delta = delta - 1
  end
end
if ARGV[10] ~= '' and redis.call('EXISTS', p .. 'recovery:' .. ARGV[10]) == 1 then
  redis.call('HSET', p .. 'recovery:' .. ARGV[10], 'used_at', ARGV[6])
end
${LIVE_DELTA('p', 'delta')}
return 1`;

// KEYS: a key's window, its info hash. ARGV: the window's start and the count a gateway saw it reach,
// now, window ms. The window on this server is never below what was seen: the same hour takes the
// higher count (the difference joins the key's total: requests served and counted on the old
// primary only); an hour this server opened later, while the seen one still runs, was opened by
// requests of the seen hour, which it takes with their count added. An hour that ended is left.
// Returns the requests added.
export const MERGE_WINDOW_SCRIPT = `
local start = tonumber(ARGV[1]); local seen = tonumber(ARGV[2])
local now = tonumber(ARGV[3]); local win = tonumber(ARGV[4])
if now >= start + win then return 0 end
local s = redis.call('HMGET', KEYS[1], 'start', 'count')
local open = tonumber(s[1]); local count = tonumber(s[2]) or 0
if open and now >= open + win then open = nil; count = 0 end
local added
if open == start then
  if count >= seen then return 0 end
  added = seen - count
  redis.call('HSET', KEYS[1], 'count', seen)
elseif open and open > start then
  added = seen
  redis.call('HSET', KEYS[1], 'start', start, 'count', count + seen)
elseif open then
  return 0
else
  added = seen
  redis.call('HSET', KEYS[1], 'start', start, 'count', seen)
end
redis.call('PEXPIRE', KEYS[1], start + win - now + 60000)
if KEYS[2] ~= KEYS[1] and redis.call('EXISTS', KEYS[2]) == 1 then redis.call('HINCRBY', KEYS[2], 'requests', added) end
return added`;
