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

const policies = new Map<number, string>();
const policyOf = (limit: number) => {
  let p = policies.get(limit);
  if (p === undefined) policies.set(limit, (p = `"default";q=${limit};w=${WINDOW_MS / 1000}`));
  return p;
};

/** X-RateLimit-* and the IETF draft pair, as a flat header list. */
export function rateLimitHeaders(d: Decision, now: number): string[] {
  const remaining = Math.max(0, d.limit - d.used);
  const seconds = Math.max(0, Math.ceil((d.resetAt - now) / 1000));
  return [
    'X-RateLimit-Limit', String(d.limit),
    'X-RateLimit-Remaining', String(remaining),
    'X-RateLimit-Used', String(d.used),
    'X-RateLimit-Reset', String(Math.ceil(d.resetAt / 1000)),
    'RateLimit-Policy', policyOf(d.limit),
    'RateLimit', `"default";r=${remaining};t=${seconds}`,
  ];
}

/**
 * Windows held in this process: exact, because one Node process runs one request's count at a
 * time. Bounded: windows that ended are swept, and `maxSubjects` caps how many are held (the
 * oldest are dropped first: used for per-address registration limits against floods).
 */
export function createMemoryLimiter(opts: { limit: number; maxSubjects?: number }) {
  const windows = new Map<string, WindowState>();
  let dirty = false;
  const max = opts.maxSubjects ?? Infinity;
  const apply = (subject: string, now: number, count: boolean) => {
    const { state, decision } = decide(windows.get(subject), now, opts.limit, count);
    if (count && decision.allowed) {
      windows.delete(subject); // re-insert: Map order is then oldest-first for eviction
      windows.set(subject, state!);
      dirty = true;
      if (windows.size > max) windows.delete(windows.keys().next().value!);
    }
    return decision;
  };
  return {
    hit: (subject: string, now: number) => apply(subject, now, true),
    peek: (subject: string, now: number) => apply(subject, now, false),
    sweep(now: number) {
      for (const [k, w] of windows) if (now >= w.start + WINDOW_MS) windows.delete(k);
    },
    /** Windows changed since the last call, for saving. */
    takeDirty(): boolean {
      const d = dirty;
      dirty = false;
      return d;
    },
    entries: () => [...windows.entries()],
    restore(rows: [string, WindowState][], now: number) {
      for (const [k, w] of rows) if (now < w.start + WINDOW_MS) windows.set(k, w);
    },
    get size() {
      return windows.size;
    },
  };
}
export type MemoryLimiter = ReturnType<typeof createMemoryLimiter>;
