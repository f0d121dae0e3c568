// Publishes a build atomically: the build is written beside the live one under a temporary name,
// flushed, renamed into builds/<build_id>, and only then does current.json (replaced by rename)
// point at it. A reader never sees half a build; a crash leaves the previous build serving.
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { replaceFiles, swapFolder } from '../atomic-write.mjs';
import { type EmittedSite, manifestText } from '../emit/emit.ts';
import {
  BUILDS_DIR,
  MANIFEST_FILE,
  type Manifest,
  POINTER_FILE,
  type Pointer,
  parsePointer,
  pointerFor,
  readBuild,
} from '../site-format.ts';
import { type FolderFiles, folderFiles } from './build-files.ts';

const KEEP_BUILDS = 3;

/** The live build's pointer, or null when none is published (or it cannot be read). */
export function livePointer(outDir: string): Pointer | null {
  try {
    return parsePointer(readFileSync(join(outDir, POINTER_FILE), 'utf8'));
  } catch {
    return null;
  }
}

/** The folder a build is written into before it is published (publishStaged), beside the live ones. */
export function stagingDir(outDir: string): string {
  // made with its first file (build-files.ts): a build refused before any is written leaves nothing
  return join(outDir, BUILDS_DIR, `.tmp-${process.pid}-${Date.now()}-${randomBytes(4).toString('hex')}`);
}

/**
 * Is the folder of this build id whole (every file the manifest names, at its length)? One that is
 * is reused; a damaged one (a file missing or cut short, which a gateway refuses) is written again
 * (docs/operations.md, "When something goes wrong").
 */
function isWhole(final: string, manifest: Manifest): boolean {
  const sized = (rel: string, length: number) => {
    const path = join(final, rel);
    return existsSync(path) && statSync(path).size === length;
  };
  const variants = Object.values(manifest.bodies).flatMap((e) => [e.identity, e.br, e.gzip]);
  return (
    sized(MANIFEST_FILE, Buffer.byteLength(manifestText(manifest))) &&
    variants.every((v) => v?.file === undefined || sized(v.file, v.length))
  );
}

/** The build made live: its folder written by `stage` (unless one of its id is whole), pointed at. */
function goLive(outDir: string, manifest: Manifest, stage: () => FolderFiles): { dir: string; reused: boolean } {
  const builds = join(outDir, BUILDS_DIR);
  const final = join(builds, manifest.build_id);
  const reused = isWhole(final, manifest);
  if (!reused) {
    const { dir: staged, durable } = stage();
    // flushed, then in place of an incomplete leftover with this id, if any (atomic-write.mjs)
    swapFolder(staged, final, `${staged}.old`, durable);
  }
  pointAt(outDir, manifest.build_id);
  prune(builds, manifest.build_id);
  return { dir: final, reused };
}

/** A build written whole into `staged` (stagingDir, build-files.ts) made the live one. */
export function publishStaged(
  outDir: string,
  staged: FolderFiles,
  manifest: Manifest,
): { dir: string; reused: boolean } {
  const published = goLive(outDir, manifest, () => staged);
  if (published.reused) rmSync(staged.dir, { recursive: true, force: true });
  return published;
}

/** A build held in memory (emit.ts's Map) published: written into a staging folder, then swapped in. */
export function publishSite(outDir: string, site: EmittedSite): { dir: string; reused: boolean } {
  return goLive(outDir, site.manifest, () => {
    const files = folderFiles(stagingDir(outDir));
    for (const [rel, bytes] of site.files) files.set(rel, bytes);
    return files;
  });
}

/** current.json names the build, replaced by rename: a reader sees the old pointer or the new. */
function pointAt(outDir: string, id: string) {
  replaceFiles([[join(outDir, POINTER_FILE), `${JSON.stringify(pointerFor(id))}\n`]]);
}

export interface KeptBuild {
  build_id: string;
  dataset_version: string;
  /** When the build's folder was written (ISO 8601). */
  written: string;
  live: boolean;
}

/** The whole builds kept in the site, newest first (the ones a rollback can go back to). */
export function keptBuilds(outDir: string): KeptBuild[] {
  const live = livePointer(outDir)?.build_id;
  const builds = join(outDir, BUILDS_DIR);
  if (!existsSync(builds)) return [];
  return readdirSync(builds)
    .filter((name) => !name.startsWith('.'))
    .flatMap((name) => {
      try {
        const m = readBuild((path) => readFileSync(join(outDir, path), 'utf8'), pointerFor(name)).manifest;
        const written = statSync(join(builds, name)).mtime.toISOString();
        return [{ build_id: name, dataset_version: m.dataset_version, written, live: name === live }];
      } catch {
        return []; // not a whole build
      }
    })
    .sort((a, b) => (a.written < b.written ? 1 : a.written > b.written ? -1 : 0));
}

/** Points the site back at a kept build (docs/operations.md, "Rolling back"); a gateway swaps it in. */
export function rollBack(outDir: string, buildId: string): KeptBuild {
  const target = keptBuilds(outDir).find((b) => b.build_id === buildId);
  if (!target) throw new Error(`no whole build ${buildId} is kept in ${join(outDir, BUILDS_DIR)}`);
  pointAt(outDir, buildId);
  return { ...target, live: true };
}

/**
 * Keeps the live build and the most recent others, so a gateway still loading one is not cut off.
 * Temporary folders of builds that died are removed once they are old enough not to be running.
 */
function prune(builds: string, live: string) {
  const now = Date.now();
  const others = readdirSync(builds, { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name !== live)
    .map((d) => ({ name: d.name, mtime: statSync(join(builds, d.name)).mtimeMs }));
  for (const t of others.filter((d) => d.name.startsWith('.tmp-') && now - d.mtime > 3_600_000)) {
    rmSync(join(builds, t.name), { recursive: true, force: true });
  }
  const done = others.filter((d) => !d.name.startsWith('.tmp-')).sort((a, b) => b.mtime - a.mtime);
  for (const old of done.slice(KEEP_BUILDS - 1)) rmSync(join(builds, old.name), { recursive: true, force: true });
}
