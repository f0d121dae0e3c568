// npm run check-authority [-- --pages DIR] [--dataset DIR]
// Re-reads every grain's authority page (fetched from its source_url, or a saved copy in DIR,
// found through DIR/pages.tsv) and prints where the dataset differs, cell by cell; exit 1 if any.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadDataset } from '../load/load.ts';
import { DEFAULT_DIRS } from '../site-format.ts';
import { createSchemaChecks } from '../validate/schema-errors.ts';
import { validateGrainFile } from '../validate/validate.ts';
import { authorityRecord, compareRecords, type Difference } from './check-authority.ts';
import type { SourceGrain } from './draft-grain.ts';
import { readPageIndex } from './read-page.ts';

const { values } = parseArgs({
  options: { pages: { type: 'string' }, dataset: { type: 'string', default: DEFAULT_DIRS.dataset } },
});

async function pageFor(url: string): Promise<string> {
  if (values.pages) {
    const dir = resolve(values.pages);
    const row = readPageIndex(dir).find((r) => r.sourceUrl === url);
    const path = join(dir, row?.file ?? url.replace(/^.*\//, ''));
    if (!existsSync(path)) throw new Error(`no saved copy of ${url} in ${dir}`);
    return readFileSync(path, 'utf8');
  }
  const res = await fetch(url, { signal: AbortSignal.timeout(30_000) });
  if (!res.ok) throw new Error(`${url} answered ${res.status}`);
  return res.text();
}

async function main(): Promise<number> {
  const ds = loadDataset(resolve(values.dataset!));
  const checks = createSchemaChecks();
  const differences: Difference[] = [];
  let problems = 0;
  for (const file of ds.grains) {
    const { record, errors } = validateGrainFile(file, checks);
    const src = file.data as SourceGrain | undefined;
    if (!record || !src) {
      console.error(`${file.file}: cannot be read; npm run build shows why`);
      problems++;
      continue;
    }
    if (errors.length)
      console.error(`${file.file}: has ${errors.length} error(s) (npm run build lists them); compared all the same`);
    try {
      const theirs = authorityRecord(await pageFor(src.source_url), file, checks);
      if (!theirs.record) {
        console.error(`${src.grain_id}: ${theirs.problem}`);
        problems++;
        continue;
      }
      const d = compareRecords(record, theirs.record);
      differences.push(...d);
      console.log(`${src.grain_id}: ${d.length ? `${d.length} difference(s)` : 'same as the authority'}`);
    } catch (err) {
      console.error(`${src.grain_id}: ${(err as Error).message}`);
      problems++;
    }
  }
  for (const d of differences) console.log(`  ${d.where}\n    dataset:   ${d.dataset}\n    authority: ${d.authority}`);
  console.log(`${differences.length} difference(s), ${problems} page(s) not checked`);
  return differences.length || problems ? 1 : 0;
}

main().then((code) => process.exit(code));
