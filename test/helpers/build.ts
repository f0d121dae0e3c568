// The build as the tests call it: one kit for the test file's process (build-site.ts, BuildKit), so
// the many builds of mostly the same bodies compile the schemas, read the assets and bundle the
// client once; and one encoding cache (build/emit/encode.ts, EncodingCache) shared by every test
// process and run of this checkout (in node_modules/.cache), so a body is compressed once, not once
// a process: the module npm run build keeps its encodings with (build/emit/encoding-cache.ts), in a
// folder of the tests' own that is never pruned (the tests build many datasets).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import * as build from '../../build/build-site.ts';
import type { EmittedSite } from '../../build/emit/emit.ts';
import { folderEncodings } from '../../build/emit/encoding-cache.ts';
import type { LoadedDataset, LoadedFile } from '../../build/load/load.ts';
import { plainBody } from '../../build/plain-body.ts';
import { pointerFor } from '../../build/site-format.ts';
import { createSchemaChecks, type SchemaChecks } from '../../build/validate/schema-errors.ts';
import * as validate from '../../build/validate/validate.ts';

const root = join(import.meta.dirname, '..', '..');
const encodings = folderEncodings(join(root, 'node_modules/.cache/test-encodings'));

let checks: SchemaChecks | undefined;
let kit: build.BuildKit | undefined;
/** Made at first use: a test that only validates does not bundle the client. */
export const testChecks = () => (checks ??= createSchemaChecks());
export const testKit = () => (kit ??= build.buildKit({ encodings, checks: testChecks() }));

export const buildSite = (datasetDir: string, options: { siteDir?: string; now?: Date } = {}) =>
  build.buildSite(datasetDir, { ...options, kit: testKit() });
export const siteFromDataset = (dataset: validate.Dataset) => build.siteFromDataset(dataset, testKit());
export const validateDataset = (loaded: LoadedDataset) => validate.validateDataset(loaded, testChecks());
export const validateGrainFile = (file: LoadedFile) => validate.validateGrainFile(file, testChecks());

/** A route's plain body in a build held in memory: its file, or its gzip form unzipped where only that is stored. */
export function plainOf(site: EmittedSite, route: string): Buffer {
  const pointer = pointerFor(site.manifest.build_id);
  const read = (path: string) => site.files.get(path.slice(pointer.dir.length + 1))!;
  const bytes = plainBody({ pointer, manifest: site.manifest }, route, read);
  assert.ok(bytes, `a body for ${route}`);
  return bytes;
}
