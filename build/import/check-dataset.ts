// Every class's page at the authority read again (fetched from its source_url, or a saved copy in a
// folder, found through its pages.tsv) and compared with the dataset, cell by cell: what
// `npm run check-authority` runs. A host that cannot be reached is named once, with why
// (network-cause.ts), and its other pages are not asked for: offline, the editor is told of --pages
// rather than of 23 failed fetches.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadDataset } from '../load/load.ts';
import { createSchemaChecks } from '../validate/schema-errors.ts';
import { validateGrainFile } from '../validate/validate.ts';
import { authorityRecord, compareRecords, type Difference } from './check-authority.ts';
import type { SourceGrain } from './draft-grain.ts';
import { networkCause } from './network-cause.ts';
import { readPageIndex } from './read-page.ts';

const FETCH_SECONDS = 30;

async function pageFor(url: string, pagesDir: string | undefined): Promise<string> {
  if (pagesDir) {
    const dir = resolve(pagesDir);
    const row = readPageIndex(dir).find((r) => r.sourceUrl === url);
    const path = join(dir, row?.file ?? url.replace(/^.*\//, ''));
    if (!existsSync(path)) throw new Error(`no saved copy of ${url} in ${dir}`);
    return readFileSync(path, 'utf8');
  }
  const res = await fetch(url, { signal: AbortSignal.timeout(FETCH_SECONDS * 1000) });
  if (!res.ok) throw new Error(`${url} answered ${res.status}`);
  return res.text();
}

/** Where the check's lines go: progress and the differences to `log`, what was not checked to `error`. */
export interface Say {
  log(line: string): void;
  error(line: string): void;
}

/**
 * Compares every class of the dataset in `datasetDir` with its page at the authority, or with the
 * saved copy in `pagesDir`, saying each class's result as it goes; how many differences and pages
 * not checked there were.
 */
export async function checkAuthority(
  datasetDir: string,
  pagesDir: string | undefined,
  say: Say,
): Promise<{ differences: number; problems: number }> {
  const ds = loadDataset(datasetDir);
  const checks = createSchemaChecks();
  const differences: Difference[] = [];
  let problems = 0;
  /** Hosts that failed at the network level, with why: each is named once, and its other pages skipped. */
  const down = new Map<string, { cause: string; skipped: number }>();
  for (const file of ds.grains) {
    const { record, errors } = validateGrainFile(file, checks);
    const src = file.data as SourceGrain | undefined;
    if (!record || !src) {
      say.error(`${file.file}: cannot be read; npm run build shows why`);
      problems++;
      continue;
    }
    if (errors.length)
      say.error(`${file.file}: has ${errors.length} error(s) (npm run build lists them); compared all the same`);
    const host = URL.canParse(src.source_url) ? new URL(src.source_url).host : src.source_url;
    const hostDown = pagesDir ? undefined : down.get(host);
    if (hostDown) {
      hostDown.skipped++;
      problems++;
      continue;
    }
    try {
      const theirs = authorityRecord(await pageFor(src.source_url, pagesDir), file, checks);
      if (!theirs.record) {
        say.error(`${src.grain_id}: ${theirs.problem}`);
        problems++;
        continue;
      }
      const d = compareRecords(record, theirs.record);
      differences.push(...d);
      say.log(`${src.grain_id}: ${d.length ? `${d.length} difference(s)` : 'same as the authority'}`);
    } catch (err) {
      const cause = pagesDir ? null : networkCause(err, host, FETCH_SECONDS);
      if (cause) {
        down.set(host, { cause, skipped: 0 });
        say.error(`${src.grain_id}: not fetched: ${cause}`);
      } else say.error(`${src.grain_id}: ${(err as Error).message}`);
      problems++;
    }
  }
  for (const [host, { skipped }] of down) {
    const others = skipped ? `${skipped} other page(s) of ${host} were not asked for. ` : '';
    say.error(`${others}No network? npm run check-authority -- --pages DIR checks saved copies of the pages.`);
  }
  for (const d of differences) say.log(`  ${d.where}\n    dataset:   ${d.dataset}\n    authority: ${d.authority}`);
  say.log(`${differences.length} difference(s), ${problems} page(s) not checked`);
  return { differences: differences.length, problems };
}
