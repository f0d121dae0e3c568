// `npm run import` as an importable function: a page (read-page.ts) and a grain id → the class's
// grain file, new (toYaml) or updated in place (grain-yaml.ts), or the reason it cannot be.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadYamlFile } from '../load/load.ts';
import { cropYearOf } from '../validate/crop-years.ts';
import { draftGrain, type GrainMeta, type SourceGrain } from './draft-grain.ts';
import { styledDocument, toYaml, updateYaml } from './grain-yaml.ts';
import { parsePage } from './parse-page.ts';
import type { FetchedPage } from './read-page.ts';

export interface ImportOptions {
  section?: string;
  name?: string;
  kind?: string;
  region?: string;
  useClass?: string;
  cropYear?: string;
}

export type Imported =
  | { ok: true; file: string; grain: SourceGrain; text: string; before: string | undefined }
  | { ok: false; messages: string[] };

export function importPage(page: FetchedPage, grainId: string, datasetDir: string, o: ImportOptions = {}): Imported {
  const parsed = parsePage(page.html);
  const file = join(datasetDir, 'grains', `${grainId}.yaml`);
  const existing = existsSync(file) ? (loadYamlFile(file, datasetDir).data as SourceGrain) : undefined;
  const wanted = o.section ?? existing?.source_section;
  const section = wanted
    ? parsed.sections.find((s) => s.name === wanted)
    : parsed.sections.length === 1
      ? parsed.sections[0]
      : undefined;
  if (!section) {
    const heading = `${wanted ? `no section "${wanted}" on the page; ` : ''}the page has these sections:`;
    return { ok: false, messages: [heading, ...parsed.sections.map((s) => `  --section "${s.name}"`)] };
  }
  // The crop year is the copy's (docs/dataset-editing.md, Crop years): a page retrieved on
  // 2026-11-25 is a 2026/27 table. --crop-year is for a page whose retrieval date is not known.
  const derived = page.retrieved ? cropYearOf(page.retrieved) : undefined;
  if (derived && o.cropYear && o.cropYear !== derived) {
    return { ok: false, messages: [`--crop-year ${o.cropYear} disagrees with the copy's date, ${page.retrieved}`] };
  }
  const meta: GrainMeta = {
    grain_id: grainId,
    grain_name: o.name ?? existing?.grain_name ?? section.name,
    kind: o.kind ?? existing?.kind ?? 'REVIEW: wheat | cereal | oilseed | pulse',
    region: o.region ? (o.region === 'none' ? null : o.region) : existing?.region,
    use_class: o.useClass ?? existing?.use_class,
    effective_crop_year: derived ?? o.cropYear ?? existing?.effective_crop_year ?? 'REVIEW: YYYY/YY',
    coverage_status: existing?.coverage_status,
    size_modifier: existing?.size_modifier,
    source_url: page.sourceUrl ?? existing?.source_url ?? 'REVIEW: the page URL',
    last_scraped: page.retrieved ?? existing?.last_scraped ?? 'REVIEW',
  };
  const grain = draftGrain(section, meta, existing);
  const before = existing ? readFileSync(file, 'utf8') : undefined;
  if (before !== undefined) return { ok: true, file, grain, before, text: updateYaml(before, styledDocument(grain)) };
  const copy = page.retrieved ? ` (copy of ${page.retrieved.slice(0, 10)})` : '';
  const header = [
    ` ${grain.grain_name} (${grain.grain_id}): grade determination table.`,
    ` Imported from the authority's page by \`npm run import\`${copy}; reviewed by an editor.`,
    ' Numbers are exactly as printed. Judged by the editor: ids, aggregates, fallthrough_conditions, variety_tracks.',
  ].join('\n');
  return { ok: true, file, grain, before, text: toYaml(grain, header) };
}
