// Mirrors the API into a folder (docs/sync.md), for Node: grains.json (the list), grains/<ID>.json
// (each record as served), changelog.json, and sync-state.json (the snapshot's ETag). One request
// does it: GET /api/snapshot, asked with the ETag the mirror holds, so an unchanged service is one
// free 304 and a changed one a single counted request. The snapshot holds every record, so a
// rollback or a build published elsewhere reaches the mirror as surely as an announced change, and
// a record that changed with no new entry naming it is reported. Atomic: the new mirror is
// assembled beside the old one and swapped in only when complete; any failure leaves the old mirror
// exactly as it was. A crop year's mirror (cropYear) holds the records as they stood in that year,
// of the classes published for it, in a folder of its own (docs/sync.md, "A past crop year").
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { replaceFiles, swapFolder } from '../atomic-write.mjs';
import { summaryOf } from '../grain-summary.ts';
import { SCHEMA_VERSION, snapshotKey } from '../site-format.ts';
import type { ChangelogEntry, Snapshot } from '../types.ts';
import { ApiError, type ClientCache, type ClientOptions, createClient, snapshotPath } from './api.ts';
import { EditionError, type TrustedEdition, targetMismatch } from './edition.ts';
import { snapshotFromMirror } from './mirror.ts';
import { syncEdition, unsignedFile } from './sync-edition.ts';

export interface SyncOptions extends Omit<ClientOptions, 'cache'> {
  out: string;
  /** Mirror the records as they stood in this crop year (`2025/26`) instead of the current ones. */
  cropYear?: string;
  log?: (line: string) => void;
  /** Aborted (Ctrl-C): the run stops before the swap, and the old mirror stays. */
  signal?: AbortSignal;
  /** The root to verify the signed edition from, as JSON text (docs/sync.md, "Signed editions"). */
  trustedRoot?: string;
  /** The time the metadata's expiry is judged by (epoch ms; now when left out). */
  now?: number;
  /** Sync from a mirror's /tuf tree (a folder or a URL: mirror.ts) instead of the service; no key, nothing counted. */
  from?: string;
}

export interface SyncSummary {
  changed: boolean;
  records: { new: number; changed: number; unchanged: number; removed: number };
  /** Requests the service counted against the hour during the run: 1, or 0 when nothing changed (a 304). */
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

/** What sync-state.json holds: the crop year (none: the current tables), ETags by path, the edition trusted. */
interface SyncState {
  crop_year?: string;
  etags: Record<string, string>;
  edition?: TrustedEdition;
}

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

const readText = (file: string) => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
};

function readState(out: string): {
  etags: Record<string, string>;
  cropYear: string | null;
  edition: TrustedEdition | null;
} {
  try {
    const s = JSON.parse(readFileSync(join(out, STATE), 'utf8')) as Partial<SyncState>;
    return { etags: s.etags ?? {}, cropYear: s.crop_year ?? null, edition: s.edition ?? null };
  } catch {
    return { etags: {}, cropYear: null, edition: null };
  }
}

/** The crop year a mirror holds (null: the current tables), as npm run grade --copy reads it. */
export const mirroredYear = (out: string) => readState(out).cropYear;

/** The grain ids the mirror's list names (none when it has no readable list). */
function mirroredIds(out: string): string[] {
  const text = readText(join(out, SYNC_FILES.list));
  try {
    return text ? (JSON.parse(text) as { grains: { grain_id: string }[] }).grains.map((g) => g.grain_id) : [];
  } catch {
    return [];
  }
}

/** Why the signed edition does not verify, as the sync's error. */
const failed = (err: unknown): never => {
  const why = err instanceof EditionError ? err.message : `its metadata could not be fetched (${err})`;
  throw new SyncError(`the signed edition does not verify: ${why}; nothing was changed`);
};

/**
 * The snapshot (from the service, or a mirror with `from`) and the signed edition verified: after the
 * one counted request, as its metadata is public and costs nothing.
 */
async function answerAndEdition(
  opts: SyncOptions,
  client: ReturnType<typeof createClient>,
  seen: TrustedEdition | null,
  path: string,
  log: (line: string) => void,
) {
  const now = opts.now ?? Date.now();
  const cropYear = opts.cropYear ?? null;
  const mirrored = opts.from
    ? await snapshotFromMirror(opts.from, { ...opts, seen, now, log }, path).catch(failed)
    : null;
  const answer = mirrored
    ? {
        notModified: false,
        body: JSON.parse(mirrored.text) as Snapshot,
        text: mirrored.text,
        etag: null,
        rateLimit: null,
      }
    : await client.snapshot(cropYear === null ? {} : { cropYear });
  const edition = mirrored?.edition ?? (await syncEdition({ ...opts, seen, now, log }).catch(failed));
  return { answer, edition, mirrored };
}

export async function syncMirror(opts: SyncOptions): Promise<SyncSummary> {
  const { out } = opts;
  const log = opts.log ?? (() => {});
  recover(out);
  const state = readState(out);
  const cropYear = opts.cropYear ?? null;
  if (existsSync(join(out, STATE)) && state.cropYear !== cropYear) {
    const what = (y: string | null) => (y ? `the crop year ${y}` : 'the current tables');
    throw new SyncError(
      `${out} is a mirror of ${what(state.cropYear)}, not of ${what(cropYear)}: each is kept in a folder of its own`,
    );
  }
  // sync-state.json names the snapshot by its canonical key (`?crop_year=2025/26`), the client asks
  // for it percent-encoded: the held ETag is sent whichever the client's path is
  const path = snapshotKey(cropYear);
  const asked = snapshotPath(cropYear ?? undefined);
  const held = state.etags[path];
  const oldIds = mirroredIds(out);
  const whole = existsSync(join(out, SYNC_FILES.list));
  // a 304 is believed only for a mirror whose every file is still there
  const intact =
    whole &&
    existsSync(join(out, SYNC_FILES.changelog)) &&
    oldIds.every((id) => existsSync(join(out, SYNC_FILES.record(id))));
  if (!held && whole && Object.keys(state.etags).length) {
    // sync-state.json of the version that asked for each body on its own: one snapshot replaces them
    log(
      'taking over a copy made by an earlier version of sync: one snapshot is fetched, and what differs is rewritten',
    );
  }
  // The snapshot is not kept whole: a 304 needs only the ETag, and its body is never read then.
  const cache: ClientCache = {
    get: (p) => (p === asked && held && intact ? { etag: held, text: 'null' } : undefined),
    set: () => {},
  };
  const client = createClient({ ...opts, cache });
  if (opts.signal?.aborted) throw new SyncError('interrupted; nothing was changed');
  const { answer, edition, mirrored } = await answerAndEdition(opts, client, state.edition, path, log);
  const refuse = (why: string | null) => {
    if (why) throw new SyncError(`the signed edition does not verify: ${why}; nothing was changed`);
  };
  const counted = answer.notModified || mirrored ? 0 : 1;
  const remaining = answer.rateLimit?.remaining ?? null;
  if (answer.notModified) {
    log('snapshot: not modified since the last sync');
    if (edition) {
      const kept = new Map(
        oldIds.map((id) => [SYNC_FILES.record(id), readText(join(out, SYNC_FILES.record(id))) ?? '']),
      );
      refuse(unsignedFile(edition, kept, SYNC_FILES, cropYear));
      writeState(out, { ...(cropYear ? { crop_year: cropYear } : {}), etags: state.etags, edition: edition.trusted });
    }
    const records = { new: 0, changed: 0, unchanged: oldIds.length, removed: 0 };
    return { changed: false, records, counted, remaining, unannounced: [] };
  }
  const snapshot = answer.body;
  if (edition) refuse(targetMismatch(edition, path, answer.text));
  const files = snapshotFiles(snapshot);
  if (edition) refuse(unsignedFile(edition, files, SYNC_FILES, cropYear));
  const records = { new: 0, changed: 0, unchanged: 0, removed: 0 };
  const changed: string[] = [];
  const ids = snapshot.grains.map((g) => g.grain_id);
  for (const id of ids) {
    const before = readText(join(out, SYNC_FILES.record(id)));
    const kind = before === null ? 'new' : before === files.get(SYNC_FILES.record(id)) ? 'unchanged' : 'changed';
    records[kind]++;
    if (kind !== 'unchanged') {
      changed.push(id);
      log(`${id}: ${kind}`);
    }
  }
  const removed = oldIds.filter((id) => !ids.includes(id));
  records.removed = removed.length;
  for (const id of removed) log(`${id}: removed`);
  // A mirror's first sync has nothing to compare with; after it, every change should have its entry.
  const named = namedByNewEntries(out, snapshot.changelog);
  const unannounced = whole ? [...changed, ...removed].filter((id) => !named.has(id)) : [];
  for (const id of unannounced) {
    log(`${id}: changed with no new changelog entry naming it (a rollback, or a build published without one)`);
  }
  if (opts.signal?.aborted) throw new SyncError('interrupted; nothing was changed');
  const etags = answer.etag ? { [path]: answer.etag } : {};
  publish(out, files, {
    ...(cropYear ? { crop_year: cropYear } : {}),
    etags,
    ...(edition && { edition: edition.trusted }),
  });
  return { changed: true, records, counted, remaining, unannounced };
}

/**
 * The mirror's files from a snapshot: each record written back as the record endpoint serves it
 * (the snapshot holds those very bodies, so JSON.stringify gives their bytes again), the list of
 * their summaries as GET /api/grains gives it, and the whole changelog as GET /api/changelog's shape.
 */
export function snapshotFiles(snapshot: Snapshot): Map<string, string> {
  const files = new Map<string, string>();
  const json = (v: unknown) => JSON.stringify(v);
  const summaries = snapshot.grains.map(({ schema_version: _, ...record }) => summaryOf(record));
  files.set(SYNC_FILES.list, json({ schema_version: SCHEMA_VERSION, count: summaries.length, grains: summaries }));
  const { changelog } = snapshot;
  files.set(
    SYNC_FILES.changelog,
    json({ schema_version: SCHEMA_VERSION, count: changelog.length, entries: changelog }),
  );
  for (const record of snapshot.grains) files.set(SYNC_FILES.record(record.grain_id), json(record));
  return files;
}

/** The classes named by the entries the snapshot lists that the mirror's changelog did not have. */
function namedByNewEntries(out: string, entries: ChangelogEntry[]) {
  let known = new Set<string>();
  try {
    const old = JSON.parse(readText(join(out, SYNC_FILES.changelog)) ?? '') as { entries: ChangelogEntry[] };
    known = new Set(old.entries.map((e) => e.id));
  } catch {
    // no changelog in the mirror: every entry is new to it
  }
  return new Set(entries.filter((e) => !known.has(e.id)).flatMap((e) => e.grain_ids_affected));
}

const stateText = (state: SyncState) => `${JSON.stringify(state, null, 1)}\n`;
/** An unchanged copy's state, with the newer edition it has now seen: replaced by rename. */
const writeState = (out: string, state: SyncState) => replaceFiles([[join(out, STATE), stateText(state)]]);

/** Written beside, then swapped in: the old mirror is renamed away only once the new one is whole. */
function publish(out: string, files: Map<string, string>, state: SyncState) {
  const tmp = `${out}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(join(tmp, 'grains'), { recursive: true });
  for (const [file, text] of files) writeFileSync(join(tmp, file), text);
  writeFileSync(join(tmp, STATE), stateText(state));
  swapFolder(tmp, out, `${out}.previous`); // flushed, then swapped in (recover() puts back a swap cut short)
}

export { ApiError };
