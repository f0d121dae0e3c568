// Fixed one-hour windows that start with a key's first counted request (docs/contract.md,
// Authentication and limits): pure arithmetic with an injected time. The rest of the rate limit
// has a file each: the headers an answer carries (rate-limit-headers.ts), the windows one process
// holds (store/memory-limiter.ts) and the windows Redis holds (store/redis/limiter.ts).
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

/**
 * What a caller keeps for one subject across requests (a verified key's account): a limiter in this
 * process's memory keeps the subject's window on it, so the next request of that subject costs no
 * lookup (docs/performance.md: the measurements behind the code). Other limiters ignore it.
 */
export interface WindowHolder {
  window?: WindowState;
}

export interface Limiter {
  /** Counts one request when the limit allows it. */
  hit(subject: string, now: number, holder?: WindowHolder): Decision | Promise<Decision>;
  /** The state without counting (for a 304, which is not counted). */
  peek(subject: string, now: number, holder?: WindowHolder): Decision | Promise<Decision>;
  /**
   * Takes back the request `counted` counted (one the service then failed to answer: an upstream
   * 502 or 504), when its window is still open; best effort, never an error.
   */
  refund(subject: string, counted: Decision, holder?: WindowHolder): void | Promise<void>;
}

/** The decision as it stands once its request is refunded (the headers of the failed answer). */
export const refunded = (d: Decision): Decision => ({ ...d, used: Math.max(0, d.used - 1) });

/**
 * The decision on one request of `window`'s subject at `now`. Counting it, when allowed, changes the
 * window in place (the first request after the hour opens the next window); a refusal or a peek
 * changes nothing. In place, because the windows a process holds are counted on every request.
 */
export function decide(window: WindowState, now: number, limit: number, count: boolean): Decision {
  const open = now < window.start + WINDOW_MS;
  const used = open ? window.count : 0;
  if (used >= limit) return { allowed: false, limit, used, resetAt: window.start + WINDOW_MS };
  if (!count) return { allowed: true, limit, used, resetAt: (open ? window.start : now) + WINDOW_MS };
  if (!open) {
    window.start = now;
    window.count = 0;
  }
  window.count++;
  window.last = now;
  window.unsaved++;
  return { allowed: true, limit, used: window.count, resetAt: window.start + WINDOW_MS };
}

export const retryAfterSeconds = (d: Decision, now: number) => Math.max(1, Math.ceil((d.resetAt - now) / 1000));
