// npm run import -- <page.html|URL> [GRAIN_ID] [--section "..."] [--name "..."] [--kind ...]
//                   [--region western|eastern|none] [--use-class ...] [--crop-year YYYY/YY] [--out DIR]
// Parses an authority page and writes (or updates) dataset/grains/<GRAIN_ID>.yaml for review.
import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadYamlFile } from '../load.ts';
import { DEFAULT_DIRS } from '../site-format.ts';
import { draftGrain, type GrainMeta, type SourceGrain, toYaml } from './draft.ts';
import { PageError, parsePage } from './parse-page.ts';
import { readPage } from './read-page.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    section: { type: 'string' },
    name: { type: 'string' },
    kind: { type: 'string' },
    region: { type: 'string' },
    'use-class': { type: 'string' },
    'crop-year': { type: 'string' },
    out: { type: 'string', default: DEFAULT_DIRS.dataset },
  },
});

async function main(): Promise<number> {
  const [pageArg, grainId] = positionals;
  if (!pageArg) {
    console.error('usage: npm run import -- <page.html|URL> [GRAIN_ID] [--section "<caption prefix>"] [--name ...]');
    return 2;
  }
  const page = await readPage(pageArg);
  const parsed = parsePage(page.html);
  const datasetDir = resolve(values.out!);
  const file = grainId ? join(datasetDir, 'grains', `${grainId}.yaml`) : undefined;
  const existing = file && existsSync(file) ? (loadYamlFile(file, datasetDir).data as SourceGrain) : undefined;

  const wanted = values.section ?? existing?.source_section;
  const section = wanted
    ? parsed.sections.find((s) => s.name === wanted)
    : parsed.sections.length === 1
      ? parsed.sections[0]
      : undefined;
  if (!section || !grainId) {
    console.error(`${wanted ? `no section "${wanted}" on the page; ` : ''}the page has these sections:`);
    for (const s of parsed.sections) console.error(`  --section "${s.name}"`);
    if (!grainId) console.error('name the grain id as the second argument');
    return 2;
  }
  const meta: GrainMeta = {
    grain_id: grainId,
    grain_name: values.name ?? existing?.grain_name ?? section.name,
    kind: values.kind ?? existing?.kind ?? 'REVIEW: wheat | cereal | oilseed | pulse',
    region: values.region ? (values.region === 'none' ? null : values.region) : existing?.region,
    use_class: values['use-class'] ?? existing?.use_class,
    effective_crop_year: values['crop-year'] ?? existing?.effective_crop_year ?? 'REVIEW: YYYY/YY',
    coverage_status: existing?.coverage_status,
    size_modifier: existing?.size_modifier,
    source_url: page.sourceUrl ?? existing?.source_url ?? 'REVIEW: the page URL',
    last_scraped: page.retrieved ?? existing?.last_scraped ?? 'REVIEW',
  };
  const grain = draftGrain(section, meta, existing);
  const copy = page.retrieved ? ` (copy of ${page.retrieved.slice(0, 10)})` : '';
  const header = [
    ` ${grain.grain_name} (${grain.grain_id}): grade determination table.`,
    ` Imported from the authority's page by \`npm run import\`${copy}; reviewed by an editor.`,
    ' Numbers are exactly as printed. Judged by the editor: ids, aggregates, fallthrough_conditions, variety_tracks.',
  ].join('\n');
  writeFileSync(file!, toYaml(grain, header));
  const factors = grain.factor_groups.reduce((n, g) => n + g.factors.length, 0);
  console.log(`${existing ? 'updated' : 'wrote'} ${file}: ${factors} factors`);
  console.log('review: aggregates, fallthrough_conditions, grade_floor_rules, then run `npm run build`.');
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err instanceof PageError ? `the page cannot be imported: ${err.message}` : err);
    process.exit(1);
  },
);
