// npm run check-authority [-- --pages DIR] [--dataset DIR]
// Re-reads every grain's authority page (fetched from its source_url, or a saved copy in DIR,
// found through DIR/pages.tsv) and prints where the dataset differs, cell by cell; exit 1 if any.
// A host that cannot be reached is named once, with why (network-cause.ts), and its other pages
// are not asked for: offline, the editor is told of --pages rather than of 23 failed fetches.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readArgs } from '../client/cli/args.ts';
import { loadDataset } from '../load/load.ts';
import { DEFAULT_DIRS } from '../site-format.ts';
import { createSchemaChecks } from '../validate/schema-errors.ts';
import { validateGrainFile } from '../validate/validate.ts';
import { authorityRecord, compareRecords, type Difference } from './check-authority.ts';
import type { SourceGrain } from './draft-grain.ts';
import { networkCause } from './network-cause.ts';
import { readPageIndex } from './read-page.ts';

const { values } = readArgs({
  command: 'npm run check-authority --',
  usage: '[--pages DIR] [--dataset DIR]',
  help: `
Reads every class's page at the authority (its source_url), or the saved copies in DIR, and
prints where the dataset differs from it, cell by cell (docs/dataset-editing.md, step 3).

  --pages DIR    read saved copies instead of fetching: DIR/pages.tsv names each page's file
  --dataset DIR  the dataset to check (default ${DEFAULT_DIRS.dataset})

Exit codes: 0 the same as the authority, 1 a difference or a page not checked, 2 usage.`,
  options: { pages: { type: 'string' }, dataset: { type: 'string', default: DEFAULT_DIRS.dataset } },
});

const FETCH_SECONDS = 30;

async function pageFor(url: string): Promise<string> {
  if (values.pages) {
    const dir = resolve(values.pages);
    const row = readPageIndex(dir).find((r) => r.sourceUrl === url);
    const path = join(dir, row?.file ?? url.replace(/^.*\//, ''));
    if (!existsSync(path)) throw new Error(`no saved copy of ${url} in ${dir}`);
    return readFileSync(path, 'utf8');
  }
  const res = await fetch(url, { signal: AbortSignal.timeout(FETCH_SECONDS * 1000) });
  if (!res.ok) throw new Error(`${url} answered ${res.status}`);
  return res.text();
}

async function main(): Promise<number> {
  const ds = loadDataset(resolve(values.dataset!));
  const checks = createSchemaChecks();
  const differences: Difference[] = [];
  let problems = 0;
  /** Hosts that failed at the network level, with why: each is named once, and its other pages skipped. */
  const down = new Map<string, { cause: string; skipped: number }>();
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
    const host = URL.canParse(src.source_url) ? new URL(src.source_url).host : src.source_url;
    const hostDown = values.pages ? undefined : down.get(host);
    if (hostDown) {
      hostDown.skipped++;
      problems++;
      continue;
    }
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
      const cause = values.pages ? null : networkCause(err, host, FETCH_SECONDS);
      if (cause) {
        down.set(host, { cause, skipped: 0 });
        console.error(`${src.grain_id}: not fetched: ${cause}`);
      } else console.error(`${src.grain_id}: ${(err as Error).message}`);
      problems++;
    }
  }
  for (const [host, { skipped }] of down) {
    const others = skipped ? `${skipped} other page(s) of ${host} were not asked for. ` : '';
    console.error(`${others}No network? npm run check-authority -- --pages DIR checks saved copies of the pages.`);
  }
  for (const d of differences) console.log(`  ${d.where}\n    dataset:   ${d.dataset}\n    authority: ${d.authority}`);
  console.log(`${differences.length} difference(s), ${problems} page(s) not checked`);
  return differences.length || problems ? 1 : 0;
}

main().then((code) => process.exit(code));
