// npm run import -- <page.html|URL> [GRAIN_ID] [--section "..."] [--name "..."] [--kind ...]
//                   [--region western|eastern|none] [--use-class ...] [--crop-year YYYY/YY] [--out DIR]
// Parses an authority page and writes (or updates in place) dataset/grains/<GRAIN_ID>.yaml for review.
import { writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { readArgs, usageExit } from '../build/cli-args.ts';
import { importPage } from '../build/import/import-page.ts';
import { PageError } from '../build/import/parse-page.ts';
import { readPage } from '../build/import/read-page.ts';
import { DEFAULT_DIRS } from '../build/site-format.ts';

const spec = {
  command: 'npm run import --',
  usage: '<page.html|URL> <GRAIN_ID> [--section NAME] [--name ...] [--kind ...] [--crop-year Y] [--out DIR]',
  help: `
Reads an authority page (a saved copy or its URL) and writes dataset/grains/<GRAIN_ID>.yaml, or
updates it in place, changing only the lines whose cells changed (docs/dataset-editing.md).

  --section NAME  the table to read, named as the page names it (a page with several; the file
                  keeps it, and an unknown name lists the page's)
  --name TEXT     the class's name (else the file's, else the section's)
  --kind K        wheat, cereal, oilseed or pulse (else the file's)
  --region R      western, eastern or none (else the file's)
  --use-class U   general_purpose, malting or food (else the file's)
  --crop-year Y   the crop year of the copy (2025/26), for a copy whose retrieval date is not known
  --out DIR       the dataset folder (default ${DEFAULT_DIRS.dataset})

Exit codes: 0 written (or unchanged), 1 the page cannot be imported, 2 usage.`,
  options: {
    section: { type: 'string' },
    name: { type: 'string' },
    kind: { type: 'string' },
    region: { type: 'string' },
    'use-class': { type: 'string' },
    'crop-year': { type: 'string' },
    out: { type: 'string', default: DEFAULT_DIRS.dataset },
  },
  positionals: true,
} as const;
const { values, positionals } = readArgs(spec);

async function main(): Promise<number> {
  const [pageArg, grainId] = positionals;
  if (!pageArg) usageExit(spec, 'give the page: a saved copy or its URL');
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
