// The build as the tests call it: one kit for the test file's process (build-site.ts, BuildKit), so
// the many builds of mostly the same bodies compile the schemas, read the assets and bundle the
// client once, and compress each body once (build/emit/emit.ts, EncodingCache). The bytes are the
// same as a build made with a kit of its own.
import * as build from '../../build/build-site.ts';
import type { LoadedDataset, LoadedFile } from '../../build/load/load.ts';
import { createSchemaChecks, type SchemaChecks } from '../../build/validate/schema-errors.ts';
import * as validate from '../../build/validate/validate.ts';

let checks: SchemaChecks | undefined;
let kit: build.BuildKit | undefined;
/** Made at first use: a test that only validates does not bundle the client. */
export const testChecks = () => (checks ??= createSchemaChecks());
export const testKit = () => (kit ??= build.buildKit({ encodings: new Map(), checks: testChecks() }));

export const buildSite = (datasetDir: string, options: { siteDir?: string } = {}) =>
  build.buildSite(datasetDir, { ...options, kit: testKit() });
export const siteFromDataset = (dataset: validate.Dataset) => build.siteFromDataset(dataset, testKit());
export const validateDataset = (loaded: LoadedDataset) => validate.validateDataset(loaded, testChecks());
export const validateGrainFile = (file: LoadedFile) => validate.validateGrainFile(file, testChecks());
