// The build as the tests call it: one kit for the test file's process (build-site.ts, BuildKit), so
// the many builds of mostly the same bodies compile the schemas, read the assets and bundle the
// client once; and one encoding cache (build/emit/emit.ts, EncodingCache) shared by every test
// process and run of this checkout (in node_modules/.cache), so a body is compressed once, not once
// a process. Its folder is named by the encoder's source (emit.ts) and this Node's zlib and brotli,
// and an entry by the body's hash, the coding and the quality: an edited encoder or another Node
// starts a new folder, so an entry is the bytes a build without the cache makes. An entry is written
// whole (beside, then renamed), and an empty one (a write cut short by a crash) is not believed.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as build from '../../build/build-site.ts';
import type { LoadedDataset, LoadedFile } from '../../build/load/load.ts';
import { createSchemaChecks, type SchemaChecks } from '../../build/validate/schema-errors.ts';
import * as validate from '../../build/validate/validate.ts';

const root = join(import.meta.dirname, '..', '..');
const encoder = createHash('sha256')
  .update(readFileSync(join(root, 'build/emit/emit.ts')))
  .update(`zlib ${process.versions.zlib} brotli ${process.versions.brotli}`)
  .digest('hex')
  .slice(0, 16);
const dir = join(root, 'node_modules/.cache/test-encodings', encoder);
mkdirSync(dir, { recursive: true });
const fileOf = (key: string) => join(dir, key.replaceAll(' ', '.'));

class SharedEncodings extends Map<string, Buffer> {
  override get(key: string): Buffer | undefined {
    const held = super.get(key);
    if (held) return held;
    try {
      const bytes = readFileSync(fileOf(key));
      if (bytes.length === 0) return undefined;
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

let checks: SchemaChecks | undefined;
let kit: build.BuildKit | undefined;
/** Made at first use: a test that only validates does not bundle the client. */
export const testChecks = () => (checks ??= createSchemaChecks());
export const testKit = () => (kit ??= build.buildKit({ encodings: new SharedEncodings(), checks: testChecks() }));

export const buildSite = (datasetDir: string, options: { siteDir?: string } = {}) =>
  build.buildSite(datasetDir, { ...options, kit: testKit() });
export const siteFromDataset = (dataset: validate.Dataset) => build.siteFromDataset(dataset, testKit());
export const validateDataset = (loaded: LoadedDataset) => validate.validateDataset(loaded, testChecks());
export const validateGrainFile = (file: LoadedFile) => validate.validateGrainFile(file, testChecks());
