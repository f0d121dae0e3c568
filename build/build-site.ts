// The build as an importable function: dataset folder → validated dataset → bodies → site.
import { guardErrors, type Unlogged } from './changelog/guard.ts';
import { changelogOrder, compileBodies } from './compile/compile.ts';
import { frontDoorBodies } from './compile/front-door.ts';
import { buildOpenApi } from './compile/openapi.ts';
import { linkContentAddressed, staticBodies } from './compile/static-bodies.ts';
import { type EmittedSite, type EncodingCache, emitSite } from './emit/emit.ts';
import type { DatasetError } from './load/dataset-error.ts';
import { loadDataset } from './load/load.ts';
import { routeOf, SCHEMA_VERSION } from './site-format.ts';
import { type Dataset, validateDataset } from './validate/validate.ts';

export type BuildResult =
  | { ok: true; site: EmittedSite; dataset: Dataset }
  | { ok: false; errors: DatasetError[]; unlogged: Unlogged[] };

/** `encodings`: kept across the caller's builds (emit.ts, EncodingCache); the same bytes without it. */
export function siteFromDataset(dataset: Dataset, encodings?: EncodingCache): EmittedSite {
  const latest = [...dataset.changelog].sort(changelogOrder)[0];
  const statics = staticBodies();
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

/** Nothing is published while any error stands, an unlogged change included (guard.ts). */
export function buildSite(datasetDir: string, encodings?: EncodingCache): BuildResult {
  const loaded = loadDataset(datasetDir);
  const { errors, dataset } = validateDataset(loaded);
  if (!dataset) return { ok: false, errors, unlogged: [] };
  const guard = guardErrors(loaded, dataset, loaded.coverage);
  const refused = [...loaded.coverageErrors, ...guard.errors];
  if (refused.length) return { ok: false, errors: refused, unlogged: guard.unlogged };
  return { ok: true, site: siteFromDataset(dataset, encodings), dataset };
}
