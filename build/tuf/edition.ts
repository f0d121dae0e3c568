// The signed metadata of a site's editions (docs/operations.md, "Signed editions"): TUF 1.0 with
// consistent snapshots, written by @tufjs/models (canonical JSON, Ed25519 over node:crypto). The
// repository lives beside the builds, in <site>/tuf/metadata/, and outlives them: a version only
// grows, so a rollback is a new targets, snapshot and timestamp version listing the older bodies
// again, and clients never refuse it. Given the keys, the previous metadata and the clock, what is
// written is always the same bytes (Ed25519 signatures are deterministic).
import { Metadata, MetaFile, Root, Snapshot, TargetFile, Targets, Timestamp } from '@tufjs/models';
import { type Manifest, ROUTES, routeOf, routeOfTargetName } from '../site-format.ts';
import { ROLES, type Role, type RoleKey, signerOf } from './keys.ts';
import type { Repository } from './repository-files.ts';

const DAY = 86_400_000;
/** How long each role's metadata is valid; the timestamp's is re-signed daily (scripts/tuf.ts, on a timer). */
const VALID_DAYS: Record<Role, number> = { root: 365, targets: 90, snapshot: 90, timestamp: 7 };
/** Targets and snapshot metadata with less than this left are signed again (by a build or the timer). */
const RENEW_DAYS = 30;

/** TUF's time: ISO 8601 to the second, UTC. */
const tufTime = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export function signedBy<T extends Root | Targets | Snapshot | Timestamp>(signed: T, keys: RoleKey[]): Metadata<T> {
  const md = new Metadata(signed);
  for (const key of keys) md.sign(signerOf(key), true);
  return md;
}

/** A root naming one key per role (threshold 1), version `version`. */
export function rootOf(keys: Record<Role, RoleKey>, version: number, now: number): Root {
  const root = new Root({
    version,
    specVersion: '1.0.31',
    expires: tufTime(now + VALID_DAYS.root * DAY),
    consistentSnapshot: true,
  });
  for (const role of ROLES) root.addKey(keys[role].key, role);
  return root;
}

/** The targets of a build: each of its target paths (target-keys.ts) with its length, hash and API route. */
export function targetsOfBuild(manifest: Manifest): Record<string, TargetFile> {
  const prefix = ROUTES.tufTargets.path.slice(0, -1);
  const targets: Record<string, TargetFile> = {};
  for (const [key, hash] of Object.entries(manifest.routes)) {
    if (routeOf(key) !== 'tufTargets') continue;
    const file = key.slice(prefix.length);
    const m = /^(.*?)([0-9a-f]{64})\.([^/]+)$/.exec(file);
    if (!m) throw new Error(`${key} is not a target path`);
    const path = `${m[1]}${m[3]}`;
    const length = manifest.bodies[hash]!.identity.length;
    const custom = { route: routeOfTargetName(path) };
    targets[path] = new TargetFile({ path, length, hashes: { sha256: m[2]! }, unrecognizedFields: { custom } });
  }
  return targets;
}

/** What a new targets version says of its build: its id and dataset version (a certificate cites them). */
export const editionOf = (manifest: Manifest) => ({
  build_id: manifest.build_id,
  dataset_version: manifest.dataset_version,
});

export interface Advance {
  keys: Record<Role, RoleKey | null>;
  now: number;
  /** The build's targets and edition; null: the targets as they are (the timer's re-signing). */
  build: { targets: Record<string, TargetFile>; edition: Record<string, string> } | null;
  /** A new timestamp version whatever else changed (the timer). */
  renewTimestamp: boolean;
}

/**
 * The next metadata of `repo`: a new targets version when the build's targets or edition differ from
 * the signed ones (or they lapse within RENEW_DAYS), then snapshot and timestamp versions that name it.
 * Returns the new files, by name; none when all stands.
 */
export function advance(repo: Repository, { keys, now, build, renewTimestamp }: Advance): Map<string, Metadata<never>> {
  const soon = (md: { signed: { expires: string } } | null) =>
    md === null || Date.parse(md.signed.expires) - now < RENEW_DAYS * DAY;
  const expires = (role: Role) => tufTime(now + VALID_DAYS[role] * DAY);
  const out = new Map<string, Metadata<never>>();
  const need = (role: Role) => {
    const key = keys[role];
    if (!key) throw new Error(`no ${role} key: the signed editions need one (docs/operations.md, "Signed editions")`);
    return key;
  };
  let { targets, snapshot, timestamp } = repo;
  const wanted = build ?? (targets && { targets: targets.signed.targets, edition: editionFields(targets.signed) });
  if (!wanted) throw new Error('no edition is signed yet: build first');
  const next = new Targets({
    version: (targets?.signed.version ?? 0) + 1,
    specVersion: '1.0.31',
    expires: expires('targets'),
    targets: wanted.targets,
    unrecognizedFields: { custom: wanted.edition },
  });
  const same = targets !== null && sameTargets(targets.signed, next);
  if (!same || soon(targets)) {
    targets = signedBy(next, [need('targets')]);
    out.set(`${targets.signed.version}.targets.json`, targets as Metadata<never>);
  }
  const t = targets!.signed.version;
  if (!snapshot || snapshot.signed.meta['targets.json']?.version !== t || soon(snapshot)) {
    const version = (snapshot?.signed.version ?? 0) + 1;
    const meta = { 'targets.json': new MetaFile({ version: t }) };
    snapshot = signedBy(new Snapshot({ version, specVersion: '1.0.31', expires: expires('snapshot'), meta }), [
      need('snapshot'),
    ]);
    out.set(`${version}.snapshot.json`, snapshot as Metadata<never>);
  }
  const s = snapshot.signed.version;
  if (!timestamp || timestamp.signed.snapshotMeta.version !== s || renewTimestamp) {
    const version = (timestamp?.signed.version ?? 0) + 1;
    const snapshotMeta = new MetaFile({ version: s });
    const ts = new Timestamp({ version, specVersion: '1.0.31', expires: expires('timestamp'), snapshotMeta });
    out.set('timestamp.json', signedBy(ts, [need('timestamp')]) as Metadata<never>);
  }
  return out;
}

const editionFields = (t: Targets) => (t.unrecognizedFields.custom ?? {}) as Record<string, string>;

/** Do two targets metadata list the same files with the same edition (their versions and expiry aside)? */
function sameTargets(a: Targets, b: Targets): boolean {
  const names = Object.keys(a.targets);
  if (names.length !== Object.keys(b.targets).length) return false;
  if (JSON.stringify(editionFields(a)) !== JSON.stringify(editionFields(b))) return false;
  return names.every((n) => b.targets[n] !== undefined && a.targets[n]!.equals(b.targets[n]!));
}
