// The hourly windows of one turn of the event loop, counted in one server-side script
// (window-batch.ts). Each window is decided in turn, in the order asked, exactly as a script call of
// its own would decide it: the script is one atomic step, so n requests of one key in a batch admit
// min(n, what is left), each answered with its own count, and no other instance comes between them.
//
// KEYS: per window, its key and the subject's info hash (its last use and request total, kept when
// touch is 1). ARGV[1]: the window's length in ms; then per window: now, limit, count (1) or peek
// (0), touch. Returns per window {allowed, used, resetAt}, one flat list.
// `now` is the gateway's clock; a new window's expiry is relative (PEXPIRE: its length and a minute,
// on Redis's own clock), so it does not depend on the gateway and Redis hosts agreeing on the time.
export const WINDOW_BATCH_SCRIPT = `
local win = tonumber(ARGV[1])
local out = {}
for i = 1, #KEYS / 2 do
  local key, info, a = KEYS[2 * i - 1], KEYS[2 * i], 4 * i - 2
  local now = tonumber(ARGV[a]); local limit = tonumber(ARGV[a + 1])
  local s = redis.call('HMGET', key, 'start', 'count')
  local start = tonumber(s[1]); local used = tonumber(s[2]) or 0
  if (not start) or now >= start + win then start = nil; used = 0 end
  local allowed = 1
  if used >= limit then
    allowed = 0
  elseif ARGV[a + 2] == '1' then
    if not start then
      start = now
      redis.call('HSET', key, 'start', now, 'count', 1)
      redis.call('PEXPIRE', key, win + 60000)
      used = 1
    else
      used = redis.call('HINCRBY', key, 'count', 1)
    end
    if ARGV[a + 3] == '1' then
      redis.call('HSET', info, 'last_used', now)
      redis.call('HINCRBY', info, 'requests', 1)
    end
  end
  out[3 * i - 2] = allowed; out[3 * i - 1] = used; out[3 * i] = (start or now) + win
end
return out`;
