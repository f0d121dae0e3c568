// The hourly windows held in this process's memory: the embedded store's (sqlite.ts saves and
// restores them) and Redis's stand-in during an outage (redis-outage.ts). The arithmetic of one
// window is rate-limit.ts's.
import { decide, WINDOW_MS, type WindowState } from '../rate-limit.ts';

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
