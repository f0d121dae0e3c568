// `grain-tables mirror --out DIR` (docs/sync.md, "Mirrors"): the service's signed edition written as
// a /tuf tree any static server can serve, verified first. The targets are not fetched one by one:
// each snapshot (the current tables' and each crop year's) is one counted request, and the records
// and the list are the bodies it holds, each checked against its signed hash before anything is
// written. Then `sync --from` reads such a tree (a folder or a URL) with no key: mirrorSource.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { swapFolder } from '../atomic-write.mjs';
import { consistentTargetFile, GRAIN_LIST_KEY, grainKey, grainYearKey, routeOf, yearOfKey } from '../site-format.ts';
import type { Snapshot } from '../types.ts';
import { type ClientOptions, createClient } from './api.ts';
import { EditionError, type TrustedEdition, targetMismatch } from './edition.ts';
import { fromUrl, syncEdition } from './sync-edition.ts';

export interface MirrorOptions extends Omit<ClientOptions, 'cache'> {
  out: string;
  trustedRoot?: string;
  now?: number;
  log?: (line: string) => void;
}

/** The bodies a snapshot holds, by the API route each equals (the sync writes the same: sync.ts). */
function bodiesOf(snapshot: Snapshot, year: string | null): Map<string, string> {
  const bodies = new Map<string, string>();
  for (const record of snapshot.grains) {
    bodies.set(year ? grainYearKey(record.grain_id, year) : grainKey(record.grain_id), JSON.stringify(record));
  }
  return bodies;
}

/** Writes the mirror; returns how many targets it holds and how many requests the service counted. */
export async function writeMirror(o: MirrorOptions, listOf: (s: Snapshot) => string) {
  const keep = new Map<string, Buffer>();
  const now = o.now ?? Date.now();
  const edition = await syncEdition({ ...o, seen: null, now, log: o.log ?? (() => {}), keep });
  if (!edition) throw new EditionError('the service publishes no signed edition: there is nothing to mirror');
  const client = createClient(o);
  const bodies = new Map<string, string>();
  let counted = 0;
  for (const route of edition.byRoute.keys()) {
    if (routeOf(route) !== 'snapshot') continue;
    const year = yearOfKey(route)?.year ?? null;
    const answer = await client.snapshot(year ? { cropYear: year } : {});
    counted++;
    bodies.set(route, answer.text);
    for (const [r, text] of bodiesOf(answer.body, year)) bodies.set(r, text);
    if (!year) bodies.set(GRAIN_LIST_KEY, listOf(answer.body));
  }
  const tmp = `${o.out}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  const write = (file: string, bytes: string | Buffer) => {
    mkdirSync(dirname(join(tmp, file)), { recursive: true });
    writeFileSync(join(tmp, file), bytes);
  };
  for (const [route, target] of edition.byRoute) {
    const body = bodies.get(route);
    const wrong =
      body === undefined ? `${route} is in no snapshot the service gave` : targetMismatch(edition, route, body);
    if (wrong) throw new EditionError(wrong);
    write(`tuf/targets/${consistentTargetFile(target.name, target.sha256)}`, body!);
  }
  // every root version, so that a client starting from any of them can follow to the newest
  const get = fromUrl(o.baseUrl, o.fetch ?? fetch);
  for (let v = 1; v <= edition.trusted.root.signed.version; v++) {
    const root = keep.get(`${v}.root.json`) ?? (await get(`${v}.root.json`));
    if (root) write(`tuf/metadata/${v}.root.json`, root);
  }
  for (const [file, bytes] of keep) if (!file.endsWith('.root.json')) write(`tuf/metadata/${file}`, bytes);
  swapFolder(tmp, o.out, `${o.out}.previous-${process.pid}`);
  rmSync(`${o.out}.previous-${process.pid}`, { recursive: true, force: true });
  return { targets: edition.byRoute.size, counted, targetsVersion: edition.trusted.targets };
}

/** A mirror's tree (a folder, or the URL a static server serves it at) as `sync --from` reads it. */
function mirrorSource(from: string, doFetch: typeof fetch = fetch) {
  const remote = /^https?:\/\//.test(from);
  const base = from.replace(/\/$/, '');
  const file = async (path: string): Promise<Buffer | null> => {
    if (!remote) {
      try {
        return readFileSync(join(from, path));
      } catch {
        return null;
      }
    }
    const res = await doFetch(`${base}/${path}`);
    if (res.status === 404) return null;
    if (!res.ok) throw new EditionError(`${base}/${path}: the server answered ${res.status}`);
    return Buffer.from(await res.arrayBuffer());
  };
  return {
    metadata: (name: string) => file(`tuf/metadata/${name}`),
    target: (name: string, sha256: string) => file(`tuf/targets/${consistentTargetFile(name, sha256)}`),
  };
}

/** `sync --from`: a mirror's edition verified from a root the copy holds, and the snapshot it signs for `route`. */
export async function snapshotFromMirror(
  from: string,
  o: {
    trustedRoot?: string;
    seen: TrustedEdition | null;
    now: number;
    log: (line: string) => void;
    fetch?: typeof fetch;
  },
  route: string,
) {
  if (o.trustedRoot === undefined && !o.seen)
    throw new EditionError('a mirror is verified from a root this copy holds: pin one with --root FILE');
  const source = mirrorSource(from, o.fetch);
  const edition = (await syncEdition({ ...o, metadata: source.metadata }))!;
  const target = edition.byRoute.get(route);
  if (!target) throw new EditionError(`${route} is not a target of the mirror's edition`);
  const bytes = await source.target(target.name, target.sha256);
  if (!bytes) throw new EditionError(`the mirror does not hold ${target.name}`);
  return { edition, text: bytes.toString('utf8') };
}
