// Fixed one-hour windows that start with an account's first counted request (docs/contract.md,
// Authentication and limits).
// Pure arithmetic with an injected time; the stores keep the state (memory here, Redis in redis.ts).

export const WINDOW_MS = 3_600_000;

export interface WindowState {
  start: number;
  count: number;
  /** When the window last counted a request (a key's last use, saved with the checkpoint). */
  last: number;
  /**
   * Requests counted since the store last saved the subject's usage (a key's running total, issue
   * 20): carried from one hour's window to the next, so a total never loses a request.
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

/**
 * The rate-limit headers of a response, as a template per base list (a variant's headers, kept
 * for the life of its build) and limit: the values that change only with the limit are filled in
 * (Limit, Policy), and the named slots are where a request writes its own. A response copies the
 * template (a slice: one fast clone) and fills the slots.
 */
interface Template {
  headers: string[];
  slots: { retryAfter: number; remaining: number; used: number; reset: number; rateLimit: number };
}

function buildTemplate(base: readonly string[], limit: number, retryAfter: boolean): Template {
  const headers = [...base];
  const slot = (name: string, value = '') => headers.push(name, value) - 1;
  const retryAfterSlot = retryAfter ? slot('Retry-After') : -1;
  slot('X-RateLimit-Limit', String(limit));
  const remaining = slot('X-RateLimit-Remaining');
  const used = slot('X-RateLimit-Used');
  const reset = slot('X-RateLimit-Reset');
  slot('RateLimit-Policy', `"default";q=${limit};w=${WINDOW_MS / 1000}`);
  const rateLimit = slot('RateLimit');
  return { headers, slots: { retryAfter: retryAfterSlot, remaining, used, reset, rateLimit } };
}

interface Templates {
  limit: number;
  plain: Template | null;
  retry: Template | null;
}
const templates = new WeakMap<readonly string[], Templates>();

function templateFor(base: readonly string[], limit: number, retryAfter: boolean): Template {
  let t = templates.get(base);
  if (t === undefined || t.limit !== limit) {
    t = { limit, plain: null, retry: null };
    templates.set(base, t);
  }
  if (retryAfter) {
    t.retry ??= buildTemplate(base, limit, true);
    return t.retry;
  }
  t.plain ??= buildTemplate(base, limit, false);
  return t.plain;
}

/** The reset time's text, kept while requests share a window end (most do). */
let lastResetAt = Number.NaN;
let lastReset = '';
const NO_HEADERS: readonly string[] = [];

function fill(d: Decision, now: number, template: Template): string[] {
  const remaining = String(Math.max(d.limit - d.used, 0));
  if (d.resetAt !== lastResetAt) {
    lastResetAt = d.resetAt;
    lastReset = String(Math.ceil(d.resetAt / 1000));
  }
  const { slots } = template;
  const h = template.headers.slice();
  if (slots.retryAfter >= 0) h[slots.retryAfter] = String(retryAfterSeconds(d, now));
  h[slots.remaining] = remaining;
  h[slots.used] = String(d.used);
  h[slots.reset] = lastReset;
  h[slots.rateLimit] = `"default";r=${remaining};t=${Math.max(0, Math.ceil((d.resetAt - now) / 1000))}`;
  return h;
}

/** `base`, then X-RateLimit-* and the IETF draft pair (docs/contract.md, Authentication and limits). */
export const rateLimitHeaders = (d: Decision, now: number, base: readonly string[] = NO_HEADERS): string[] =>
  fill(d, now, templateFor(base, d.limit, false));

/** The same for a 429: Retry-After (whole seconds, at least 1) before the rate-limit headers. */
export const retryHeaders = (d: Decision, now: number, base: readonly string[] = NO_HEADERS): string[] =>
  fill(d, now, templateFor(base, d.limit, true));

/** A window as saved: the subject, when its hour started and how many requests it counted. */
export type SavedWindow = [subject: string, start: number, count: number, last?: number];

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
        held.last = now;
        held.unsaved++;
      } else {
        // re-insert: Map order is then oldest-first for eviction
        state!.unsaved = (held?.unsaved ?? 0) + 1;
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
    /**
     * Drops the windows whose hour is over and gives the others (for saving). One with usage not
     * yet settled is kept until it is, but not given.
     */
    live(now: number): Map<string, WindowState> {
      let unsettled = false;
      for (const [k, w] of windows) {
        if (now < w.start + WINDOW_MS) continue;
        if (w.unsaved === 0) windows.delete(k);
        else unsettled = true;
      }
      if (!unsettled) return windows;
      return new Map([...windows].filter(([, w]) => now < w.start + WINDOW_MS));
    },
    /**
     * Each subject with requests counted since the last call, with their number and its last use;
     * `settle` then marks them saved (call it only once they are). A window whose hour is over is
     * kept until its requests are settled.
     */
    unsaved(): { rows: [subject: string, requests: number, last: number][]; settle(): void } {
      const taken: WindowState[] = [];
      const rows: [string, number, number][] = [];
      for (const [k, w] of windows) {
        if (w.unsaved === 0) continue;
        taken.push(w);
        rows.push([k, w.unsaved, w.last]);
      }
      return {
        rows,
        settle: () => {
          for (let i = 0; i < taken.length; i++) taken[i]!.unsaved -= rows[i]![1];
        },
      };
    },
    /** Whether anything was counted since the last call. */
    takeChanged(): boolean {
      const c = changed;
      changed = false;
      return c;
    },
    restore(rows: Iterable<SavedWindow>, now: number) {
      for (const [k, start, count, last = start] of rows) {
        if (now < start + WINDOW_MS) windows.set(k, { start, count, last, unsaved: 0 });
      }
      while (windows.size > max) windows.delete(windows.keys().next().value!);
    },
    get size() {
      return windows.size;
    },
  };
}
export type MemoryLimiter = ReturnType<typeof createMemoryLimiter>;
