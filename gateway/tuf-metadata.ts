// GET /tuf/metadata/*: the signed editions' metadata (docs/operations.md, "Signed editions"), public
// and cacheable: every root version, the timestamp, and the snapshot and targets versions it names.
// They change apart from the builds (the timestamp is re-signed on a timer), so they are held here,
// not in a build's table: timestamp.json is looked at as often as the pointer, and when its bytes
// change the set is read again and swapped in by one assignment. Every request is a lookup.
import { bodyHash, JSON_CONTENT_TYPE, ROUTES, strongEtag, TUF_METADATA_DIR } from '../build/site-format.ts';
import { ERRORS } from './errors.ts';
import type { Handler } from './exchange.ts';
import { precondition } from './negotiate.ts';
import type { Resource } from './resource.ts';
import { errorResponse, response } from './responses.ts';
import { preparedVariant } from './variant-headers.ts';

/** A timestamp is cached 300 s at most by a shared cache, a minute by a browser. */
const TIMESTAMP_SHARED_MAX = 300;

export interface TufHolder {
  /** File name → answer; empty when the site has no signed edition yet. */
  current: ReadonlyMap<string, Resource>;
  /** When the timestamp served lapses (epoch ms), or null. */
  timestampExpires: number | null;
  /** Changes whenever the set does (health rebuilds its body only then). */
  version: number;
  close(): void;
}

/** A timestamp this close to its expiry is a warning in /health and GET /metrics: the timer has not re-signed it. */
const LAPSE_WARNING_MS = 2 * 86_400_000;
/** Does the timestamp served lapse within two days (or has it)? False where none is served. */
export const tufLapsing = (tuf: TufHolder | null, now: number) =>
  tuf?.timestampExpires != null && tuf.timestampExpires - now < LAPSE_WARNING_MS;

type Read = (path: string) => Promise<Buffer>;
const versionIn = (bytes: Buffer, file: string): number =>
  (JSON.parse(bytes.toString('utf8')) as { signed: { meta: Record<string, { version: number }> } }).signed.meta[file]!
    .version;

/** The files a client walks, from timestamp.json: it, the snapshot and targets it names, every root. */
async function readSet(read: Read, roots: Buffer[]): Promise<Map<string, Buffer> | null> {
  const at = (file: string) => read(`${TUF_METADATA_DIR}/${file}`);
  const timestamp = await at('timestamp.json').catch(() => null);
  if (!timestamp) return null;
  const snapshotFile = `${versionIn(timestamp, 'snapshot.json')}.snapshot.json`;
  const snapshot = await at(snapshotFile);
  const targetsFile = `${versionIn(snapshot, 'targets.json')}.targets.json`;
  const files = new Map([
    ['timestamp.json', timestamp],
    [snapshotFile, snapshot],
    [targetsFile, await at(targetsFile)],
  ]);
  // roots never change once written: only the newer ones are looked for
  for (let next = await at(`${roots.length + 1}.root.json`).catch(() => null); next; ) {
    roots.push(next);
    next = await at(`${roots.length + 1}.root.json`).catch(() => null);
  }
  roots.forEach((bytes, i) => {
    files.set(`${i + 1}.root.json`, bytes);
  });
  return files;
}

const resourceOf = (bytes: Buffer, sharedSeconds: number): Resource => {
  const shared = Math.min(sharedSeconds, TIMESTAMP_SHARED_MAX);
  const cache = `public, max-age=${Math.min(60, shared)}, s-maxage=${shared}`;
  const etag = strongEtag(bodyHash(bytes));
  const serving = { cache, crossOrigin: true, modified: null }; // public: any page may read it
  return {
    identity: preparedVariant({ type: JSON_CONTENT_TYPE }, { length: bytes.length, etag }, null, serving, bytes),
  };
};

const expiresOf = (timestamp: Buffer | undefined) =>
  timestamp
    ? Date.parse((JSON.parse(timestamp.toString('utf8')) as { signed: { expires: string } }).signed.expires)
    : null;

export async function watchTufMetadata(opts: {
  read: Read;
  pollMs: number;
  sharedSeconds: number;
  log: (event: Record<string, unknown>) => void;
}): Promise<TufHolder> {
  const roots: Buffer[] = [];
  let seen: Buffer | null = null;
  /** The edition served last, without the one before it. */
  let latest: ReadonlyMap<string, Resource> = new Map();
  let failing = false;
  const holder: TufHolder = {
    current: new Map(),
    timestampExpires: null,
    version: 0,
    close: () => clearInterval(timer),
  };
  const load = async () => {
    const timestamp = await opts.read(`${TUF_METADATA_DIR}/timestamp.json`).catch(() => null);
    if (timestamp && seen ? timestamp.equals(seen) : timestamp === seen) return; // unchanged, or still none
    const files = timestamp ? await readSet(opts.read, roots) : null;
    seen = timestamp;
    const map = new Map([...(files ?? [])].map(([name, bytes]) => [name, resourceOf(bytes, opts.sharedSeconds)]));
    // the edition before stays too, until the next: a client that read the old timestamp just before
    // the swap still finds the snapshot and targets it names
    const own = new Map(map);
    for (const [name, doc] of latest) if (!map.has(name)) map.set(name, doc);
    latest = own;
    holder.current = map;
    holder.timestampExpires = expiresOf(files?.get('timestamp.json'));
    holder.version++;
  };
  let loading = false;
  const tick = async () => {
    if (loading) return; // one read at a time: the roots are gathered in order
    loading = true;
    try {
      await load();
      if (failing) opts.log({ event: 'tuf_metadata_readable' });
      failing = false;
    } catch (err) {
      if (!failing) opts.log({ event: 'tuf_metadata_unreadable', error: (err as Error).message });
      failing = true;
    } finally {
      loading = false;
    }
  };
  await tick();
  const timer = setInterval(() => void tick(), opts.pollMs);
  timer.unref();
  return holder;
}

const PREFIX = ROUTES.tufMetadata.path.slice(0, -1);

/** The handler: the file named, identity only (metadata is small), 304 on its ETag, else a 404. */
export const createTufMetadataServing =
  (holder: TufHolder | null): Handler<'tuf_metadata'> =>
  (req, _now, head) => {
    const q = req.url.indexOf('?');
    const file = (q < 0 ? req.url : req.url.slice(0, q)).slice(req.url.indexOf(PREFIX) + PREFIX.length);
    const doc = holder?.current.get(file);
    if (!doc) return errorResponse(ERRORS.notFound, head);
    const decided = precondition(req.headers, doc, doc.identity);
    if (decided === 'failed') return errorResponse(ERRORS.preconditionFailed, head);
    if (decided === 'not_modified') return response(304, doc.identity.notModifiedHeaders, null);
    return response(200, doc.identity.headers, head ? null : doc.identity.body);
  };
