// The live build, and the watch for a new one: current.json is polled, and a new build is loaded
// in full before one assignment swaps it in. A build that cannot be loaded is refused: the
// previous one keeps serving, /health names the refused build and why, and the log says so once
// per build, not once per poll (docs/operations.md, "When something goes wrong").
import type { Pointer } from '../build/site-format.ts';
import type { Site } from './site.ts';

interface RefusedBuild {
  buildId: string;
  reason: string;
}

export interface SiteHolder {
  current: Site;
  /** A newer build that could not be loaded, until a good one is (or the pointer goes back). */
  refused: RefusedBuild | null;
  /** Why current.json cannot be read now (SITE_DIR gone, the origin down), or null. */
  unreadable: string | null;
  /** Changes whenever any of the above does, so /health rebuilds its body only then. */
  version: number;
  close(): void;
}

/** A refused build is tried again this often, quietly: its files may have been put right. */
const RETRY_REFUSED_MS = 30_000;

export function watchSite(opts: {
  initial: Site;
  pollMs: number;
  readPointer: () => Promise<Pointer>;
  load: (p: Pointer) => Promise<Site>;
  log: (event: Record<string, unknown>) => void;
}): SiteHolder {
  let loading = false;
  /** Polls until a refused build is tried again. */
  let retryIn = 0;
  const holder: SiteHolder = {
    current: opts.initial,
    refused: null,
    unreadable: null,
    version: 0,
    close: () => clearInterval(timer),
  };
  const change = (refused: RefusedBuild | null, unreadable: string | null) => {
    if (refused?.buildId === holder.refused?.buildId && unreadable === holder.unreadable) return;
    holder.refused = refused;
    holder.unreadable = unreadable;
    holder.version++;
  };
  const tick = async () => {
    if (loading) return;
    loading = true;
    let p: Pointer;
    try {
      p = await opts.readPointer();
    } catch (err) {
      const reason = (err as Error).message;
      if (holder.unreadable === null) opts.log({ event: 'site_unreadable', error: reason });
      change(holder.refused, reason);
      loading = false;
      return;
    }
    if (holder.unreadable !== null) opts.log({ event: 'site_readable' });
    try {
      // the pointer went back to the build served: nothing newer is refused any more
      if (p.build_id === holder.current.buildId) return change(null, null);
      if (p.build_id === holder.refused?.buildId && --retryIn > 0) return change(holder.refused, null);
      const next = await opts.load(p);
      const previous = holder.current.buildId;
      holder.current = next;
      change(null, null);
      opts.log({ event: 'site_swapped', from: previous, to: next.buildId, dataset_version: next.datasetVersion });
    } catch (err) {
      const reason = (err as Error).message;
      if (p.build_id !== holder.refused?.buildId)
        opts.log({ event: 'site_load_failed', build_id: p.build_id, serving: holder.current.buildId, error: reason });
      retryIn = Math.ceil(RETRY_REFUSED_MS / opts.pollMs);
      change({ buildId: p.build_id, reason }, null);
    } finally {
      loading = false;
    }
  };
  const timer = setInterval(() => void tick(), opts.pollMs);
  timer.unref();
  return holder;
}
