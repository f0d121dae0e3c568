// The hourly windows held in this process's memory: the embedded store's (sqlite/sqlite-store.ts
// saves and restores them) and Redis's stand-in during an outage (redis/outage.ts). The arithmetic
// of one window is rate-limit.ts's.
import { type Decision, decide, WINDOW_MS, type WindowHolder, type WindowState } from '../rate-limit.ts';

/** A window as saved: the subject, when its hour started and how many requests it counted. */
export type SavedWindow = [subject: string, start: number, count: number, last?: number];

/** A window in the map, and whether it has left it (a holder then looks its subject up again). */
interface HeldWindow extends WindowState {
  dropped: boolean;
}
/** Every window is made here, so all have one shape (the code that counts sees one kind of object). */
const heldWindow = (start: number, count: number, last: number, unsaved: number): HeldWindow => ({
  start,
  count,
  last,
  unsaved,
  dropped: false,
});

/**
 * Windows held in this process: exact, because one Node process runs one request's count at a
 * time. Bounded: windows that ended are swept, and `maxSubjects` caps how many are held (the
 * oldest are dropped first: used for per-address registration limits against floods). A count
 * changes its window in place; a caller that passes a holder (app.ts: the key's account) finds the
 * window there next time, with no lookup, until the window leaves the map.
 */
export function createMemoryLimiter(opts: { limit: number; maxSubjects?: number }) {
  const windows = new Map<string, HeldWindow>();
  let changed = false;
  const max = opts.maxSubjects ?? Infinity;
  const drop = (subject: string, w: HeldWindow) => {
    windows.delete(subject);
    w.dropped = true;
  };
  const apply = (subject: string, now: number, count: boolean, holder: WindowHolder | undefined) => {
    const kept = holder?.window as HeldWindow | undefined;
    const held = kept !== undefined && !kept.dropped ? kept : windows.get(subject);
    // no window yet: a closed one, which the first count opens
    const w = held ?? heldWindow(Number.NEGATIVE_INFINITY, 0, Number.NEGATIVE_INFINITY, 0);
    const decision = decide(w, now, opts.limit, count);
    const counted = count && decision.allowed;
    if (counted) {
      changed = true;
      if (held === undefined || max !== Infinity) {
        // (re-)inserted: Map order is then oldest-first for eviction
        windows.delete(subject);
        windows.set(subject, w);
        if (windows.size > max) {
          const [oldest, window] = windows.entries().next().value!;
          drop(oldest, window);
        }
      }
    }
    // the holder keeps the window only while it is the one in the map (counted, or there already)
    if (holder !== undefined && w !== kept && (held !== undefined || counted)) holder.window = w;
    return decision;
  };
  return {
    hit: (subject: string, now: number, holder?: WindowHolder) => apply(subject, now, true, holder),
    peek: (subject: string, now: number, holder?: WindowHolder) => apply(subject, now, false, holder),
    refund(subject: string, counted: Decision, holder?: WindowHolder) {
      const kept = holder?.window as HeldWindow | undefined;
      const w = kept !== undefined && !kept.dropped ? kept : windows.get(subject);
      // only in the window that counted it: a new hour has a count of its own
      if (w === undefined || w.start + WINDOW_MS !== counted.resetAt || w.count === 0) return;
      w.count--;
      if (w.unsaved > 0) w.unsaved--;
      changed = true;
    },
    /**
     * Drops the windows whose hour is over and gives the others (for saving). One with usage not
     * yet settled is kept until it is, but not given.
     */
    live(now: number): Map<string, WindowState> {
      let unsettled = false;
      for (const [k, w] of windows) {
        if (now < w.start + WINDOW_MS) continue;
        if (w.unsaved === 0) drop(k, w);
        else unsettled = true;
      }
      if (!unsettled) return windows;
      return new Map([...windows].filter(([, w]) => now < w.start + WINDOW_MS));
    },
    /**
     * Each subject with requests counted since the last call, with their number, its last use and
     * its window's start; `settle` then marks them saved (call it only once they are). A window
     * whose hour is over is kept until its requests are settled.
     */
    unsaved(): { rows: [subject: string, requests: number, last: number, start: number][]; settle(): void } {
      const taken: WindowState[] = [];
      const rows: [string, number, number, number][] = [];
      for (const [k, w] of windows) {
        if (w.unsaved === 0) continue;
        taken.push(w);
        rows.push([k, w.unsaved, w.last, w.start]);
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
        if (now >= start + WINDOW_MS) continue;
        const replaced = windows.get(k);
        if (replaced) drop(k, replaced);
        windows.set(k, heldWindow(start, count, last, 0));
      }
      while (windows.size > max) {
        const [oldest, window] = windows.entries().next().value!;
        drop(oldest, window);
      }
    },
    get size() {
      return windows.size;
    },
  };
}
export type MemoryLimiter = ReturnType<typeof createMemoryLimiter>;
