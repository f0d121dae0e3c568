// The build as the tests call it, with an encoding cache (build/emit.ts, EncodingCache) shared by
// every test process and run: the many builds of mostly the same bodies (pages' scripts, client
// modules, the suite, the real dataset's records) compress each body once on this machine instead
// of once a process. An entry is keyed by the body's hash, the coding and the quality, and by this
// Node's zlib and brotli, so it is the bytes a build without it makes; it is written whole (beside,
// then renamed) so a reader never sees half of one.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as build from '../../build/build-site.ts';
import type { EncodingCache } from '../../build/emit.ts';
import type { Dataset } from '../../build/validate.ts';

const { zlib, brotli } = process.versions;
const dir = join(tmpdir(), `grain-test-encodings-zlib${zlib}-brotli${brotli}`);
mkdirSync(dir, { recursive: true });
const fileOf = (key: string) => join(dir, key.replaceAll(' ', '.'));

class SharedEncodings extends Map<string, Buffer> {
  override get(key: string): Buffer | undefined {
    const held = super.get(key);
    if (held) return held;
    try {
      const bytes = readFileSync(fileOf(key));
      super.set(key, bytes);
      return bytes;
    } catch {
      return undefined;
    }
  }
  override set(key: string, bytes: Buffer): this {
    const beside = `${fileOf(key)}.${process.pid}`;
    writeFileSync(beside, bytes);
    renameSync(beside, fileOf(key));
    return super.set(key, bytes);
  }
}
const encodings: EncodingCache = new SharedEncodings();

export const buildSite = (datasetDir: string) => build.buildSite(datasetDir, encodings);
export const siteFromDataset = (dataset: Dataset) => build.siteFromDataset(dataset, encodings);
