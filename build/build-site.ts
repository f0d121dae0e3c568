// The build as an importable function: dataset folder → loaded (load/) → validated (validate/) →
// bodies (compile/: the data, the OpenAPI document, the files; pages/: the pages) → encodings and
// manifest (emit/), refused while a change has no changelog entry (changelog/); the command line
// then publishes (publish/).
// What comes from files rather than the dataset (the pages' assets, the client's bundles and
// package, the editors' schemas compiled) is made once by buildKit and handed in, so
// siteFromDataset is pure and a caller's many builds do that work once.

import { futureEntryErrors, guardErrors, type Unlogged } from './changelog/guard.ts';
import { readLiveBuild, unloggedAgainstLive } from './changelog/live.ts';
import { changelogOrder, compileBodies, type KeyedBody } from './compile/compile.ts';
import { buildOpenApi } from './compile/openapi.ts';
import { type BuildFiles, type EmittedSite, emitSite } from './emit/emit.ts';
import type { EncodingCache } from './emit/encode.ts';
import type { DatasetError } from './load/dataset-error.ts';
import { loadDataset } from './load/load.ts';
import { linkContentAddressed, type StaticBodies, staticBodies } from './pack/static-bodies.ts';
import { frontDoorBodies } from './pages/front-door.ts';
import { type RouteName, routeOf, SCHEMA_VERSION, yearOfKey } from './site-format.ts';
import { withTargetKeys } from './tuf/target-keys.ts';
import { createSchemaChecks, type SchemaChecks } from './validate/schema-errors.ts';
import { type Dataset, validateDataset } from './validate/validate.ts';

/** What a build needs besides the dataset: made by buildKit, kept across the caller's builds. */
export interface BuildKit {
  /** The editors' schemas, compiled (validate/schema-errors.ts). */
  checks: SchemaChecks;
  /** The bodies read from files or bundled by esbuild (pack/static-bodies.ts). */
  statics: StaticBodies;
  /** Each body's encodings, kept across builds (emit/encode.ts, EncodingCache); the same bytes without it. */
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

export type BuildResult<F extends BuildFiles = Map<string, Buffer>> =
  | { ok: true; site: EmittedSite<F>; dataset: Dataset; live: LiveBuildId | null }
  /** `against`: the live build a change was refused against, where that is the refusal (`errors` is then empty). */
  | { ok: false; errors: DatasetError[]; unlogged: Unlogged[]; against?: LiveBuildId };
type LiveBuildId = { build_id: string };

/** The routes whose bodies are many or large and few ask for: the changelog's limits, the feed (all of it). */
const FAST_ROUTES: (RouteName | null)[] = ['changelog', 'feed'];

/** Routes → bodies, as the keys of each distinct body (a string by its text, bytes by the object). */
function grouped(bodies: Iterable<readonly [string, string | Buffer]>): KeyedBody[] {
  const keys = new Map<string | Buffer, string[]>();
  for (const [route, body] of bodies) keys.set(body, [...(keys.get(body) ?? []), route]);
  return [...keys].map(([body, routes]) => [routes, body] as const);
}

/**
 * Every body of the build, a body at a time with all the keys it answers (compile.ts, KeyedBody):
 * the data made one by one; the pages and files, few and small, grouped by their bytes.
 */
function* allBodies(dataset: Dataset, statics: StaticBodies): Generator<KeyedBody> {
  const openapi = buildOpenApi(dataset);
  // the data, each TUF target also under its target path (tuf/target-keys.ts)
  yield* withTargetKeys(compileBodies(dataset, openapi));
  const pages = [...frontDoorBodies(dataset, openapi)].map(
    ([route, html]) => [route, linkContentAddressed(html, statics.addresses)] as const,
  );
  yield* grouped([...pages, ...statics.bodies]);
}

/** The build's bodies emitted into `files` (in memory unless given: a folder, build-files.ts). */
export function siteFromDataset<F extends BuildFiles = Map<string, Buffer>>(
  dataset: Dataset,
  { statics, encodings }: Omit<BuildKit, 'checks'>,
  files?: F,
): Promise<EmittedSite<F>> {
  const latest = [...dataset.changelog].sort(changelogOrder)[0];
  return emitSite(
    allBodies(dataset, statics),
    {
      schema_version: SCHEMA_VERSION,
      dataset_version: latest?.id ?? 'unreleased',
      ...(latest ? { dataset_updated_at: latest.created_at } : {}),
      grain_ids: dataset.grains.map((g) => g.grain_id),
      // The many bodies few ask for (the changelog at each limit, a past crop year's) are compressed
      // fast at nearly the same size; the few that clients sync get the smallest form
      // (docs/performance.md, Growth).
      effort: (route) => (FAST_ROUTES.includes(routeOf(route)!) || yearOfKey(route) ? 'fast' : 'small'),
      encodings,
    },
    files,
  );
}

export interface BuildOptions<F extends BuildFiles> {
  /** Made once and kept across builds; made for this build when left out. */
  kit?: BuildKit;
  /** Where the files go as they are made (a folder: publish/build-files.ts); held in a Map when left out. */
  files?: F;
  /** The site the build is for: a record that would change from its live build needs an entry the
   * live build does not have yet (changelog/live.ts), whatever dataset/covered/ says. */
  siteDir?: string;
  /** The build's clock: an entry dated after its day is refused (changelog/guard.ts). The real clock when left out. */
  now?: Date;
}

/** Nothing is published while any error stands, an unlogged change included (changelog/guard.ts, live.ts). */
export async function buildSite<F extends BuildFiles = Map<string, Buffer>>(
  datasetDir: string,
  { kit = buildKit(), siteDir, files, now = new Date() }: BuildOptions<F> = {},
): Promise<BuildResult<F>> {
  const checked = checkedDataset(datasetDir, kit.checks, siteDir, now.toISOString().slice(0, 10));
  if (!checked.ok) return checked;
  const { dataset, live } = checked;
  return { ok: true, site: await siteFromDataset(dataset, kit, files), dataset, live };
}

/**
 * The dataset loaded, validated and guarded, or why it is refused. Its own function so that the
 * files as parsed (kept for the errors' lines) are let go before the bodies are made.
 */
function checkedDataset(
  datasetDir: string,
  checks: SchemaChecks,
  siteDir: string | undefined,
  today: string,
): Exclude<BuildResult, { ok: true }> | { ok: true; dataset: Dataset; live: LiveBuildId | null } {
  const loaded = loadDataset(datasetDir);
  const { errors, dataset } = validateDataset(loaded, checks);
  if (!dataset) return { ok: false, errors, unlogged: [] };
  const guard = guardErrors(loaded, dataset, loaded.coverage);
  const refused = [...loaded.coverageErrors, ...guard.errors, ...futureEntryErrors(loaded, dataset, today)];
  if (refused.length) return { ok: false, errors: refused, unlogged: guard.unlogged };
  const live = siteDir === undefined ? null : readLiveBuild(siteDir);
  const silent = live ? unloggedAgainstLive(dataset, live) : [];
  if (live && silent.length) return { ok: false, errors: [], unlogged: silent, against: { build_id: live.build_id } };
  return { ok: true, dataset, live: live && { build_id: live.build_id } };
}
