// Fixed one-hour windows that start with an account's first counted request (decisions.md §3).
// Pure arithmetic with an injected time; the stores keep the state (memory here, Redis in redis.ts).

export const WINDOW_MS = 3_600_000;

export interface WindowState {
  start: number;
  count: number;
}

export interface Decision {
  allowed: boolean;
  limit: number;
  used: number;
  /** Epoch milliseconds when the window ends (now + window when no window is open). */
  resetAt: number;
}

export interface Limiter {
  /** Counts one request when the limit allows it. */
  hit(subject: string, now: number): Decision | Promise<Decision>;
  /** The state without counting (for a 304, which is not counted). */
  peek(subject: string, now: number): Decision | Promise<Decision>;
}

export function decide(state: WindowState | undefined, now: number, limit: number, count: boolean): { state: WindowState | undefined; decision: Decision } {
  const open = state && now < state.start + WINDOW_MS ? state : undefined;
  const used = open?.count ?? 0;
  if (used >= limit) return { state: open, decision: { allowed: false, limit, used, resetAt: open!.start + WINDOW_MS } };
  if (!count) return { state: open, decision: { allowed: true, limit, used, resetAt: open ? open.start + WINDOW_MS : now + WINDOW_MS } };
  const next = open ? { start: open.start, count: used + 1 } : { start: now, count: 1 };
  return { state: next, decision: { allowed: true, limit, used: next.count, resetAt: next.start + WINDOW_MS } };
}

export const retryAfterSeconds = (d: Decision, now: number) => Math.max(1, Math.ceil((d.resetAt - now) / 1000));

/**
 * Per base list (a variant's headers, kept for the life of its build) and limit, the whole header
 * list with the values that change only with the limit filled in (Limit, Policy), plain and with
 * Retry-After: a response copies one (a slice, one fast clone; concat was a C++ call costing
 * ~0.4 µs in the server) and sets the four values that change per request.
 */
interface Templates {
  limit: number;
  plain: string[] | null;
  retry: string[] | null;
}
const templates = new WeakMap<readonly string[], Templates>();
const limitHeaders = (limit: number) => [
  'X-RateLimit-Limit', String(limit),
  'X-RateLimit-Remaining', '',
  'X-RateLimit-Used', '',
  'X-RateLimit-Reset', '',
  'RateLimit-Policy', `"default";q=${limit};w=${WINDOW_MS / 1000}`,
  'RateLimit', '',
];
function templateFor(base: readonly string[], limit: number, retryAfter: boolean): string[] {
  let t = templates.get(base);
  if (t === undefined || t.limit !== limit) templates.set(base, (t = { limit, plain: null, retry: null }));
  if (retryAfter) return (t.retry ??= [...base, 'Retry-After', '', ...limitHeaders(limit)]);
  return (t.plain ??= [...base, ...limitHeaders(limit)]);
}
let lastResetAt = NaN;
let lastReset = '';
const NO_HEADERS: readonly string[] = [];

/**
 * X-RateLimit-* and the IETF draft pair (decisions.md §3) as a flat header list after `base`;
 * with `retryAfter`, Retry-After first (a 429).
 */
export function rateLimitHeaders(d: Decision, now: number, retryAfter = false, base: readonly string[] = NO_HEADERS): string[] {
  const remaining = d.limit - d.used > 0 ? d.limit - d.used : 0;
  const seconds = Math.max(0, Math.ceil((d.resetAt - now) / 1000));
  if (d.resetAt !== lastResetAt) {
    lastResetAt = d.resetAt;
    lastReset = String(Math.ceil(d.resetAt / 1000));
  }
  const h = templateFor(base, d.limit, retryAfter).slice();
  let i = base.length;
  if (retryAfter) {
    h[i + 1] = String(retryAfterSeconds(d, now));
    i += 2;
  }
  const rest = String(remaining);
  h[i + 3] = rest;
  h[i + 5] = String(d.used);
  h[i + 7] = lastReset;
  h[i + 11] = `"default";r=${rest};t=${seconds}`;
  return h;
}

/** A window as saved: the subject, when its hour started and how many requests it counted. */
export type SavedWindow = [subject: string, start: number, count: number];

/**
 * Windows held in this process: exact, because one Node process runs one request's count at a
 * time. Bounded: windows that ended are swept, and `maxSubjects` caps how many are held (the
 * oldest are dropped first: used for per-address registration limits against floods). A count
 * changes its window in place (no Map write on the hot path when unbounded).
 */
export function createMemoryLimiter(opts: { limit: number; maxSubjects?: number }) {
  const windows = new Map<string, WindowState>();
  let changed = false;
  const max = opts.maxSubjects ?? Infinity;
  const apply = (subject: string, now: number, count: boolean) => {
    const held = windows.get(subject);
    const { state, decision } = decide(held, now, opts.limit, count);
    if (count && decision.allowed) {
      changed = true;
      if (held && max === Infinity) {
        held.start = state!.start;
        held.count = state!.count;
      } else {
        // re-insert: Map order is then oldest-first for eviction
        if (held) windows.delete(subject);
        windows.set(subject, state!);
        if (windows.size > max) windows.delete(windows.keys().next().value!);
      }
    }
    return decision;
  };
  return {
    hit: (subject: string, now: number) => apply(subject, now, true),
    peek: (subject: string, now: number) => apply(subject, now, false),
    /** Drops the windows whose hour is over and gives the others (for saving). */
    live(now: number): Map<string, WindowState> {
      for (const [k, w] of windows) if (now >= w.start + WINDOW_MS) windows.delete(k);
      return windows;
    },
    /** Whether anything was counted since the last call. */
    takeChanged(): boolean {
      const c = changed;
      changed = false;
      return c;
    },
    restore(rows: Iterable<SavedWindow>, now: number) {
      for (const [k, start, count] of rows) if (now < start + WINDOW_MS) windows.set(k, { start, count });
      while (windows.size > max) windows.delete(windows.keys().next().value!);
    },
    get size() {
      return windows.size;
    },
  };
}
export type MemoryLimiter = ReturnType<typeof createMemoryLimiter>;
