// A site's TUF repository on disk (site-format.ts, TUF_METADATA_DIR): the metadata read back, and new
// versions written beside and renamed in, the timestamp last, so a reader that follows the timestamp
// always finds the snapshot and targets it names. Versions never overwrite one another.
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Metadata, MetadataKind, type Root, type Snapshot, type Targets, type Timestamp } from '@tufjs/models';
import { replaceFiles } from '../atomic-write.mjs';
import { TUF_METADATA_DIR } from '../site-format.ts';

export interface Repository {
  dir: string;
  /** The newest root, or null in a site that has none yet. */
  root: Metadata<Root> | null;
  timestamp: Metadata<Timestamp> | null;
  snapshot: Metadata<Snapshot> | null;
  targets: Metadata<Targets> | null;
}

const ROOT_FILE = /^([1-9][0-9]*)\.root\.json$/;

/** The versions of root the folder holds, in order. */
const rootVersions = (dir: string): number[] =>
  existsSync(dir)
    ? readdirSync(dir)
        .flatMap((f) => {
          const m = ROOT_FILE.exec(f);
          return m ? [Number(m[1])] : [];
        })
        .sort((a, b) => a - b)
    : [];

const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

/** The site's metadata as the timestamp names it: timestamp → snapshot → targets, and the newest root. */
export function readRepository(siteDir: string): Repository {
  const dir = join(siteDir, TUF_METADATA_DIR);
  const roots = rootVersions(dir);
  const root = roots.length
    ? Metadata.fromJSON(MetadataKind.Root, readJson(join(dir, `${roots.at(-1)}.root.json`)))
    : null;
  const tsFile = join(dir, 'timestamp.json');
  if (!root || !existsSync(tsFile)) return { dir, root, timestamp: null, snapshot: null, targets: null };
  const timestamp = Metadata.fromJSON(MetadataKind.Timestamp, readJson(tsFile));
  const s = timestamp.signed.snapshotMeta.version;
  const snapshot = Metadata.fromJSON(MetadataKind.Snapshot, readJson(join(dir, `${s}.snapshot.json`)));
  const t = snapshot.signed.meta['targets.json']!.version;
  const targets = Metadata.fromJSON(MetadataKind.Targets, readJson(join(dir, `${t}.targets.json`)));
  return { dir, root, timestamp, snapshot, targets };
}

/** A metadata file's text: its JSON on one line (what is signed is its canonical form, not this). */
const metadataText = (md: { toJSON(): unknown }) => `${JSON.stringify(md.toJSON())}\n`;

/** New metadata files written into the repository: versioned ones first, timestamp.json last; none overwritten. */
export function writeMetadata(dir: string, files: ReadonlyMap<string, { toJSON(): unknown }>) {
  mkdirSync(dir, { recursive: true });
  const list = [...files].sort(([a], [b]) => (a === 'timestamp.json' ? 1 : b === 'timestamp.json' ? -1 : 0));
  for (const [name] of list) {
    if (name !== 'timestamp.json' && existsSync(join(dir, name)))
      throw new Error(`${join(dir, name)} exists: a version is written once`);
  }
  replaceFiles(list.map(([name, md]) => [join(dir, name), metadataText(md)] as const));
}
