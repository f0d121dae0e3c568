// Mirrors the API into a folder (docs/sync.md), for Node: grains.json (the list), grains/<ID>.json
// (each record as served), changelog.json, and sync-state.json (the ETags). Every body is asked
// with the ETag the mirror holds, so an unchanged one is a free 304 and only changed ones cost
// quota. The changelog says what changed, but it is not taken as proof that nothing did: the list
// and every record are verified too, so a rollback or a build published elsewhere still reaches the
// mirror, and a record that changed with no new entry naming it is reported. Atomic: the new mirror
// is assembled beside the old one and swapped in only when complete; any failure leaves the old
// mirror exactly as it was. A crop year's mirror (cropYear) holds the records as they stood in that
// year, of the classes published for it, in a folder of its own (docs/sync.md, "A past crop year").
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { GRAIN_LIST_KEY, grainKey, grainYearKey, ROUTES, routeOf } from '../site-format.ts';
import { ApiError, type ClientCache, type ClientOptions, createClient, type RateLimit } from './api.ts';

export interface SyncOptions extends Omit<ClientOptions, 'cache'> {
  out: string;
  /** Mirror the records as they stood in this crop year (`2025/26`) instead of the current ones. */
  cropYear?: string;
  log?: (line: string) => void;
  /** Aborted (Ctrl-C): the run stops before the swap, and the old mirror stays. */
  signal?: AbortSignal;
}

export interface SyncSummary {
  changed: boolean;
  records: { new: number; changed: number; unchanged: number; removed: number };
  /**
   * Requests the service counted against the hour during the run: read from its X-RateLimit-Used
   * headers, so it stays true behind a cache that answers or rewrites some requests itself; where
   * the service sends none, the answers that were not a 304.
   */
  counted: number;
  remaining: number | null;
  /** Classes whose record changed with no new changelog entry naming them (a rollback, say). */
  unannounced: string[];
}

export class SyncError extends Error {}

const STATE = 'sync-state.json';
/** Where a copy keeps each body (docs/sync.md): the list, the changelog, and one file a record. */
export const SYNC_FILES = {
  list: 'grains.json',
  changelog: 'changelog.json',
  record: (grainId: string) => `grains/${grainId}.json`,
};
const fileOf = (path: string) =>
  path === GRAIN_LIST_KEY
    ? SYNC_FILES.list
    : routeOf(path) === 'changelog'
      ? SYNC_FILES.changelog
      : SYNC_FILES.record(idOfPath(path));
/** The grain id of a record's path, with or without its crop year. */
const idOfPath = (path: string) => basename(path.split('?')[0]!);

/** A run cut short between the two renames of a swap leaves the previous mirror beside: put it back. */
function recover(out: string) {
  const previous = `${out}.previous`;
  if (!existsSync(out) && existsSync(previous)) renameSync(previous, out);
  const parent = dirname(out);
  if (!existsSync(parent)) return;
  for (const name of readdirSync(parent)) {
    if (name.startsWith(`${basename(out)}.tmp-`)) rmSync(join(parent, name), { recursive: true, force: true });
  }
}

export async function syncMirror(opts: SyncOptions): Promise<SyncSummary> {
  const { out } = opts;
  const log = opts.log ?? (() => {});
  recover(out);
  const { etags: state, cropYear: mirrored } = readState(out);
  const cropYear = opts.cropYear ?? null;
  if (existsSync(join(out, STATE)) && mirrored !== cropYear) {
    const what = (y: string | null) => (y ? `the crop year ${y}` : 'the current tables');
    throw new SyncError(
      `${out} is a mirror of ${what(mirrored)}, not of ${what(cropYear)}: each is kept in a folder of its own`,
    );
  }
  const recordPath = (id: string) => (cropYear ? grainYearKey(id, encodeURIComponent(cropYear)) : grainKey(id));
  const fresh = new Map<string, { etag: string; text: string }>();
  const cache: ClientCache = {
    get(path) {
      const etag = state[path];
      const file = join(out, fileOf(path));
      return etag && existsSync(file) ? { etag, text: readFileSync(file, 'utf8') } : undefined;
    },
    set: (path, entry) => fresh.set(path, entry),
  };
  const client = createClient({ ...opts, cache });
  let remaining: number | null = null;
  const tally = countedTally();
  const ask = async <T>(answer: Promise<{ notModified: boolean; rateLimit: RateLimit | null } & T>) => {
    if (opts.signal?.aborted) throw new SyncError('interrupted; nothing was changed');
    const a = await answer;
    tally.add(a.notModified, a.rateLimit?.used ?? null);
    remaining = a.rateLimit?.remaining ?? remaining;
    return a;
  };
  const done = (records: SyncSummary['records'], changed: boolean, unannounced: string[] = []): SyncSummary => ({
    changed,
    records,
    counted: tally.counted(),
    remaining,
    unannounced,
  });

  const changelog = await ask(client.changelog());
  log(changelog.notModified ? 'changelog: not modified since the last sync' : 'changelog: changed');
  const list = await ask(client.listGrains());
  const listed = list.body.grains.map((g) => g.grain_id);
  const oldIds = Object.keys(state).flatMap((p) => (p.startsWith(GRAIN) ? [idOfPath(p)] : []));
  // Quota-aware: when the changelog says the data changed, every record may have.
  if (!changelog.notModified && remaining !== null && remaining < listed.length) {
    const reset = list.rateLimit ? new Date(list.rateLimit.reset * 1000).toISOString() : 'the next hour';
    throw new SyncError(
      `the key has ${remaining} requests left this hour and a sync may need ${listed.length}; nothing was changed. ` +
        `Retry after ${reset}.`,
    );
  }
  const files = new Map<string, string>([
    [SYNC_FILES.changelog, changelog.text],
    [SYNC_FILES.list, list.text],
  ]);
  const records = { new: 0, changed: 0, unchanged: 0, removed: 0 };
  const changed: string[] = [];
  const ids: string[] = [];
  for (const id of listed) {
    const path = recordPath(id);
    let record: Awaited<ReturnType<typeof client.getGrain>>;
    try {
      record = await ask(client.getGrain(id, cropYear ? { cropYear } : {}));
    } catch (err) {
      // a class not published for the year is not in its mirror (the answer was counted all the same)
      if (!(cropYear && err instanceof ApiError && err.code === 'unknown_crop_year')) throw err;
      tally.add(false, err.rateLimit?.used ?? null);
      remaining = err.rateLimit?.remaining ?? remaining;
      continue;
    }
    ids.push(id);
    files.set(fileOf(path), record.text);
    const kind = !(path in state) ? 'new' : record.notModified || record.etag === state[path] ? 'unchanged' : 'changed';
    records[kind]++;
    if (kind !== 'unchanged') changed.push(id);
    if (kind !== 'unchanged' || !changelog.notModified) log(`${id}: ${kind}`);
  }
  const removed = oldIds.filter((id) => !ids.includes(id));
  records.removed = removed.length;
  const whole = existsSync(join(out, SYNC_FILES.list));
  if (whole && changelog.notModified && list.notModified && !changed.length && !removed.length) {
    return done(records, false);
  }
  // A mirror's first sync has nothing to compare with; after it, every change should have its entry.
  const unannounced = whole ? [...changed, ...removed].filter((id) => !namedByNewEntries(out, changelog).has(id)) : [];
  for (const id of unannounced) {
    log(`${id}: changed with no new changelog entry naming it (a rollback, or a build published without one)`);
  }
  const etags: Record<string, string> = {};
  for (const path of [ROUTES.changelog.path, GRAIN_LIST_KEY, ...ids.map(recordPath)]) {
    const etag = fresh.get(path)?.etag ?? state[path];
    if (etag) etags[path] = etag;
  }
  if (opts.signal?.aborted) throw new SyncError('interrupted; nothing was changed');
  publish(out, files, { ...(cropYear ? { crop_year: cropYear } : {}), etags });
  return done(records, true, unannounced);
}

const GRAIN = grainKey('');

/**
 * What the service counted, from the X-RateLimit-Used of each answer: the rises between answers
 * (a window that resets starts again from its own count), plus the first answer when it was not a
 * 304. Without the header, each answer that was not a 304.
 */
function countedTally() {
  let own = 0;
  let fromHeaders = 0;
  let last: number | null = null;
  let headers = true;
  return {
    add(notModified: boolean, used: number | null) {
      if (!notModified) own++;
      if (used === null) headers = false;
      else if (last === null) fromHeaders = notModified ? 0 : 1;
      else fromHeaders += used >= last ? used - last : used;
      if (used !== null) last = used;
    },
    counted: () => (headers && last !== null ? fromHeaders : own),
  };
}

/** The classes named by the entries the API lists now that the mirror's changelog did not have. */
function namedByNewEntries(out: string, changelog: { notModified: boolean; body: { entries: Entry[] } }) {
  if (changelog.notModified) return new Set<string>();
  let known = new Set<string>();
  try {
    const old = JSON.parse(readFileSync(join(out, SYNC_FILES.changelog), 'utf8')) as { entries: Entry[] };
    known = new Set(old.entries.map((e) => e.id));
  } catch {
    // no changelog in the mirror: every entry is new to it
  }
  return new Set(changelog.body.entries.filter((e) => !known.has(e.id)).flatMap((e) => e.grain_ids_affected));
}
type Entry = { id: string; grain_ids_affected: string[] };

function readState(out: string): { etags: Record<string, string>; cropYear: string | null } {
  try {
    const s = JSON.parse(readFileSync(join(out, STATE), 'utf8')) as {
      etags?: Record<string, string>;
      crop_year?: string;
    };
    return { etags: s.etags ?? {}, cropYear: s.crop_year ?? null };
  } catch {
    return { etags: {}, cropYear: null };
  }
}

/** The crop year a mirror holds (null: the current tables), as npm run grade --copy reads it. */
export const mirroredYear = (out: string) => readState(out).cropYear;

/** Written beside, then swapped in: the old mirror is renamed away only once the new one is whole. */
function publish(
  out: string,
  files: Map<string, string>,
  state: { crop_year?: string; etags: Record<string, string> },
) {
  const tmp = `${out}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(join(tmp, 'grains'), { recursive: true });
  for (const [file, text] of files) writeFileSync(join(tmp, file), text);
  writeFileSync(join(tmp, STATE), `${JSON.stringify(state, null, 1)}\n`);
  const previous = `${out}.previous`;
  if (existsSync(out)) {
    rmSync(previous, { recursive: true, force: true });
    renameSync(out, previous);
    renameSync(tmp, out);
    rmSync(previous, { recursive: true, force: true });
  } else {
    mkdirSync(dirname(out), { recursive: true });
    renameSync(tmp, out);
  }
}

export { ApiError };
