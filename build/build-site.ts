// The build as an importable function: dataset folder → validated dataset → bodies → site.
import { compileBodies } from './compile.ts';
import { emitSite, type EmittedSite } from './emit.ts';
import { loadDataset, type DatasetError } from './load.ts';
import { SCHEMA_VERSION } from './types.ts';
import { validateDataset, type Dataset } from './validate.ts';
import { changelogOrder } from './compile.ts';

export type BuildResult = { ok: true; site: EmittedSite; dataset: Dataset } | { ok: false; errors: DatasetError[] };

export function siteFromDataset(dataset: Dataset): EmittedSite {
  const latest = [...dataset.changelog].sort(changelogOrder)[0];
  return emitSite(compileBodies(dataset), {
    schema_version: SCHEMA_VERSION,
    dataset_version: latest?.id ?? 'unreleased',
    grain_ids: dataset.grains.map((g) => g.grain_id),
    // Measured on a 10× dataset: quality 7 gives changelog pages 11.2% of their size in 0.2 s,
    // quality 11 gives 10.3% in 17.6 s. The few large bodies clients sync get the smallest form.
    brotliQuality: (route) => (route.startsWith('/api/changelog') ? 7 : 11),
  });
}

export function buildSite(datasetDir: string): BuildResult {
  const { errors, dataset } = validateDataset(loadDataset(datasetDir));
  if (!dataset) return { ok: false, errors };
  return { ok: true, site: siteFromDataset(dataset), dataset };
}
