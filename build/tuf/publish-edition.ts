// The signed editions as the commands run them (docs/operations.md, "Signed editions"): a build's
// edition published after its bodies (scripts/build.ts, and a rollback), the timestamp re-signed on
// a timer, and a new root signed offline. Each reads the site's repository, signs what must change
// with the keys of STATE_DIR (or the ones given) and writes it (repository-files.ts).
import { join } from 'node:path';
import type { Metadata, Root } from '@tufjs/models';
import type { Manifest } from '../site-format.ts';
import { advance, editionOf, rootOf, signedBy, targetsOfBuild } from './edition.ts';
import { KEYS_DIR, type Role, type RoleKey, stateKeys } from './keys.ts';
import { type Repository, readRepository, writeMetadata } from './repository-files.ts';

export interface EditionOptions {
  siteDir: string;
  stateDir: string;
  /** Epoch milliseconds: the clock the expiry dates count from. */
  now: number;
}

export interface EditionResult {
  /** The versions now served. */
  versions: Record<Role, number>;
  /** The metadata files written (none when the edition stands as signed). */
  written: string[];
  /** Development keys were made in the state folder for this build (a first build with none). */
  developmentKeys: boolean;
}

/** The online roles' keys must be the ones the root names: a sentence naming the file otherwise. */
function checkKeys(root: Metadata<Root>, keys: Record<Role, RoleKey | null>, stateDir: string) {
  for (const role of ['targets', 'snapshot', 'timestamp'] as const) {
    const file = join(stateDir, KEYS_DIR, `${role}.pem`);
    const key = keys[role];
    if (!key) throw new Error(`${file} is missing: the ${role} key signs every edition`);
    if (!root.signed.roles[role]!.keyIDs.includes(key.key.keyID))
      throw new Error(`${file} is not a ${role} key that ${root.signed.version}.root.json names`);
  }
}

function finish(repo: Repository, files: Map<string, Metadata<never>>, developmentKeys: boolean): EditionResult {
  writeMetadata(repo.dir, files);
  const now = readRepository(join(repo.dir, '..', '..'));
  const versions = {
    root: now.root!.signed.version,
    targets: now.targets!.signed.version,
    snapshot: now.snapshot!.signed.version,
    timestamp: now.timestamp!.signed.version,
  };
  return { versions, written: [...files.keys()], developmentKeys };
}

/** The live build's edition: a first root in a site with none (from the state folder's root key). */
export function publishEdition(manifest: Manifest, { siteDir, stateDir, now }: EditionOptions): EditionResult {
  const repo = readRepository(siteDir);
  const { keys, made } = stateKeys(stateDir, repo.root === null);
  const files = new Map<string, Metadata<never>>();
  if (!repo.root) {
    const { root, targets, snapshot, timestamp } = keys;
    if (!root || !targets || !snapshot || !timestamp)
      throw new Error(
        `${repo.dir} holds no root metadata and ${join(stateDir, KEYS_DIR)} not every key to sign one: ` +
          'sign the first root offline (docs/operations.md, "Signed editions")',
      );
    repo.root = signedBy(rootOf({ root, targets, snapshot, timestamp }, 1, now), [root]);
    files.set('1.root.json', repo.root as Metadata<never>);
  }
  checkKeys(repo.root, keys, stateDir);
  const build = { targets: targetsOfBuild(manifest), edition: editionOf(manifest) };
  for (const [name, md] of advance(repo, { keys, now, build, renewTimestamp: false })) files.set(name, md);
  return finish(repo, files, made);
}

/** The timer's work: a new timestamp version (and targets and snapshot ones where they lapse within 30 days). */
export function renewEdition({ siteDir, stateDir, now }: EditionOptions): EditionResult {
  const repo = readRepository(siteDir);
  if (!repo.root) throw new Error(`${repo.dir} holds no signed edition yet: build first`);
  const { keys } = stateKeys(stateDir, false);
  checkKeys(repo.root, keys, stateDir);
  return finish(repo, advance(repo, { keys, now, build: null, renewTimestamp: true }), false);
}

/**
 * A new root version naming `keys` (one per role), signed by `signers`: the current root's key and,
 * when it changes, the new one (TUF: a new root is signed by the old root's threshold and its own).
 */
export function rotateRoot(
  { siteDir, now }: Omit<EditionOptions, 'stateDir'>,
  keys: Record<Role, RoleKey>,
  signers: RoleKey[],
): number {
  const repo = readRepository(siteDir);
  const version = (repo.root?.signed.version ?? 0) + 1;
  writeMetadata(repo.dir, new Map([[`${version}.root.json`, signedBy(rootOf(keys, version, now), signers)]]));
  return version;
}
