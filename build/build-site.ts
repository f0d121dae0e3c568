// The build as an importable function: dataset folder → loaded (load/) → validated (validate/) →
// bodies (compile/: the data, the OpenAPI document, the files; pages/: the pages) → encodings and
// manifest (emit/), refused while a change has no changelog entry (changelog/); the command line
// then publishes (publish/).
// What comes from files rather than the dataset (the pages' assets, the client's bundles and
// package, the editors' schemas compiled) is made once by buildKit and handed in, so
// siteFromDataset is pure and a caller's many builds do that work once.

import { guardErrors, type Unlogged } from './changelog/guard.ts';
import { readLiveBuild, unloggedAgainstLive } from './changelog/live.ts';
import { changelogOrder, compileBodies } from './compile/compile.ts';
import { buildOpenApi } from './compile/openapi.ts';
import { type EmittedSite, type EncodingCache, emitSite } from './emit/emit.ts';
import type { DatasetError } from './load/dataset-error.ts';
import { loadDataset } from './load/load.ts';
import { linkContentAddressed, type StaticBodies, staticBodies } from './pack/static-bodies.ts';
import { frontDoorBodies } from './pages/front-door.ts';
import { routeOf, SCHEMA_VERSION } from './site-format.ts';
import { createSchemaChecks, type SchemaChecks } from './validate/schema-errors.ts';
import { type Dataset, validateDataset } from './validate/validate.ts';

/** What a build needs besides the dataset: made by buildKit, kept across the caller's builds. */
export interface BuildKit {
  /** The editors' schemas, compiled (validate/schema-errors.ts). */
  checks: SchemaChecks;
  /** The bodies read from files or bundled by esbuild (pack/static-bodies.ts). */
  statics: StaticBodies;
  /** Each body's encodings, kept across builds (emit.ts, EncodingCache); the same bytes without it. */
  encodings?: EncodingCache;
}

/** Reads the assets, runs esbuild and compiles the schemas (unless given): the work that is not the dataset's. */
export const buildKit = ({
  encodings,
  checks,
}: {
  encodings?: EncodingCache;
  checks?: SchemaChecks;
} = {}): BuildKit => ({
  checks: checks ?? createSchemaChecks(),
  statics: staticBodies(),
  encodings,
});

export type BuildResult =
  | { ok: true; site: EmittedSite; dataset: Dataset; live: LiveBuildId | null }
  /** `against`: the live build a change was refused against, where that is the refusal (`errors` is then empty). */
  | { ok: false; errors: DatasetError[]; unlogged: Unlogged[]; against?: LiveBuildId };
type LiveBuildId = { build_id: string };

export function siteFromDataset(dataset: Dataset, { statics, encodings }: Omit<BuildKit, 'checks'>): EmittedSite {
  const latest = [...dataset.changelog].sort(changelogOrder)[0];
  const openapi = buildOpenApi(dataset);
  const pages = [...frontDoorBodies(dataset, openapi)].map(
    ([route, html]) => [route, linkContentAddressed(html, statics.addresses)] as const,
  );
  const bodies = new Map([...compileBodies(dataset, openapi), ...pages, ...statics.bodies]);
  return emitSite(bodies, {
    schema_version: SCHEMA_VERSION,
    dataset_version: latest?.id ?? 'unreleased',
    ...(latest ? { dataset_updated_at: latest.created_at } : {}),
    grain_ids: dataset.grains.map((g) => g.grain_id),
    // The many changelog pages take a fast quality at nearly the same size; the few large bodies
    // clients sync get the smallest form (docs/performance.md: the measurements behind the code).
    brotliQuality: (route) => (routeOf(route) === 'changelog' ? 7 : 11),
    encodings,
  });
}

export interface BuildOptions {
  /** Made once and kept across builds; made for this build when left out. */
  kit?: BuildKit;
  /** The site the build is for: a record that would change from its live build needs an entry the
   * live build does not have yet (changelog/live.ts), whatever dataset/covered/ says. */
  siteDir?: string;
}

/** Nothing is published while any error stands, an unlogged change included (changelog/guard.ts, live.ts). */
export function buildSite(datasetDir: string, { kit = buildKit(), siteDir }: BuildOptions = {}): BuildResult {
  const loaded = loadDataset(datasetDir);
  const { errors, dataset } = validateDataset(loaded, kit.checks);
  if (!dataset) return { ok: false, errors, unlogged: [] };
  const guard = guardErrors(loaded, dataset, loaded.coverage);
  const refused = [...loaded.coverageErrors, ...guard.errors];
  if (refused.length) return { ok: false, errors: refused, unlogged: guard.unlogged };
  const live = siteDir === undefined ? null : readLiveBuild(siteDir);
  const silent = live ? unloggedAgainstLive(dataset, live) : [];
  if (live && silent.length) return { ok: false, errors: [], unlogged: silent, against: { build_id: live.build_id } };
  return { ok: true, site: siteFromDataset(dataset, kit), dataset, live: live && { build_id: live.build_id } };
}
