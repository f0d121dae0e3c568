// Fixed one-hour windows that start with a key's first counted request (docs/contract.md,
// Authentication and limits): pure arithmetic with an injected time. The rest of the rate limit
// has a file each: the headers an answer carries (rate-limit-headers.ts), the windows one process
// holds (store/memory-limiter.ts) and the windows Redis holds (store/redis-limiter.ts).
import { RATE_LIMIT_WINDOW_SECONDS } from '../build/site-format.ts';

export const WINDOW_MS = RATE_LIMIT_WINDOW_SECONDS * 1000;

export interface WindowState {
  start: number;
  count: number;
  /** When the window last counted a request (a key's last use, saved with the checkpoint). */
  last: number;
  /**
   * Requests counted since the store last saved the subject's usage (a key's running total, shown
   * to operators): carried from one hour's window to the next, so a total never loses a request.
   */
  unsaved: number;
}

export interface Decision {
  allowed: boolean;
  limit: number;
  used: number;
  /** Epoch milliseconds when the window ends (now + window when no window is open). */
  resetAt: number;
}

/**
 * Registration attempts from one address, refused ones included, are bounded too, but loosely:
 * they write nothing, and a typo must not cost an hour (docs/contract.md, Keys and registration).
 */
export const ATTEMPTS_PER_REGISTRATION = 10;

export interface Limiter {
  /** Counts one request when the limit allows it. */
  hit(subject: string, now: number): Decision | Promise<Decision>;
  /** The state without counting (for a 304, which is not counted). */
  peek(subject: string, now: number): Decision | Promise<Decision>;
}

export function decide(
  state: WindowState | undefined,
  now: number,
  limit: number,
  count: boolean,
): { state: WindowState | undefined; decision: Decision } {
  const open = state && now < state.start + WINDOW_MS ? state : undefined;
  const used = open?.count ?? 0;
  if (used >= limit)
    return { state: open, decision: { allowed: false, limit, used, resetAt: open!.start + WINDOW_MS } };
  if (!count)
    return {
      state: open,
      decision: { allowed: true, limit, used, resetAt: open ? open.start + WINDOW_MS : now + WINDOW_MS },
    };
  const next = open
    ? { start: open.start, count: used + 1, last: now, unsaved: open.unsaved }
    : { start: now, count: 1, last: now, unsaved: 0 };
  return { state: next, decision: { allowed: true, limit, used: next.count, resetAt: next.start + WINDOW_MS } };
}

export const retryAfterSeconds = (d: Decision, now: number) => Math.max(1, Math.ceil((d.resetAt - now) / 1000));
