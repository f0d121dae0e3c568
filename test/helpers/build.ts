// The build as the tests call it: one encoding cache for the test file's process, so the many
// builds of mostly the same bodies (pages' scripts, client modules, the suite) compress each body
// once (build/emit/emit.ts, EncodingCache). The bytes are the same as a build without it.
import * as build from '../../build/build-site.ts';
import type { EncodingCache } from '../../build/emit/emit.ts';
import type { Dataset } from '../../build/validate/validate.ts';

const encodings: EncodingCache = new Map();

export const buildSite = (datasetDir: string) => build.buildSite(datasetDir, encodings);
export const siteFromDataset = (dataset: Dataset) => build.siteFromDataset(dataset, encodings);
