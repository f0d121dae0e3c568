// npm run import -- <page.html|URL> [GRAIN_ID] [--section "..."] [--name "..."] [--kind ...]
//                   [--region western|eastern|none] [--use-class ...] [--crop-year YYYY/YY] [--out DIR]
// Parses an authority page and writes (or updates in place) dataset/grains/<GRAIN_ID>.yaml for review.
import { writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_DIRS } from '../site-format.ts';
import { importPage } from './import-page.ts';
import { PageError } from './parse-page.ts';
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
  const r = importPage(page, grainId ?? '', resolve(values.out!), {
    section: values.section,
    name: values.name,
    kind: values.kind,
    region: values.region,
    useClass: values['use-class'],
    cropYear: values['crop-year'],
  });
  if (!r.ok || !grainId) {
    for (const line of r.ok ? [] : r.messages) console.error(line);
    if (!grainId) console.error('name the grain id as the second argument');
    return 2;
  }
  if (r.text !== r.before) writeFileSync(r.file, r.text);
  const factors = r.grain.factor_groups.reduce((n, g) => n + g.factors.length, 0);
  const what = r.before === undefined ? 'wrote' : r.text === r.before ? 'unchanged' : 'updated';
  console.log(`${what} ${relative('.', r.file)}: ${factors} factors, crop year ${r.grain.effective_crop_year}`);
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
