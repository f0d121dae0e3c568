// npm run changelog -- --summary "…": drafts the changelog entry that names every published record
// changed since the changelog last covered it (build/changelog/ says how), appends it to
// dataset/changelog.yaml and records what the changelog now covers in dataset/covered/.
import { resolve } from 'node:path';
import { describeChange } from '../build/changelog/diff.ts';
import { draftChangelog, startCoverage } from '../build/changelog/files.ts';
import { readLiveBuild } from '../build/changelog/live.ts';
import { correctionTitle } from '../build/changelog/printed.ts';
import { readArgs, usageExit } from '../build/cli-args.ts';
import { DEFAULT_DIRS } from '../build/site-format.ts';
import { formatError } from '../build/validate/validate.ts';

const spec = {
  command: 'npm run changelog --',
  usage:
    '--summary "<what changed>" [--effective-date YYYY-MM-DD] [--correction] [--dataset DIR] [--site DIR] | --baseline',
  help: `
Compares every published record with what the changelog last covered (dataset/covered/), prints the
difference, and appends one entry per crop year of the changed records to dataset/changelog.yaml,
with a fresh id, created_at (now), grain_ids_affected and the changed values (changes). Review it,
run npm run build, and commit dataset/.

  --summary TEXT         what changed, in a sentence clients will read (required unless every
                         change is a re-check: a page found unchanged, its crop year moved)
  --effective-date DATE  when the change takes effect, YYYY-MM-DD (default: today, UTC; never later)
  --correction           the change corrects a finished crop year's table (the dataset misprinted it):
                         asked for, and required, when an entry would change what a record of a crop
                         year that has ended prints; the entry is marked as a correction
  --dataset DIR          the dataset folder (default: dataset)
  --site DIR             a published site: its live build names old values of a class the
                         changelog has never covered (default: none)
  --baseline             start dataset/covered/ on a dataset that has none (once)

Exit codes: 0 written, 1 nothing written (nothing changed, or the dataset has errors), 2 usage.`,
  options: {
    summary: { type: 'string' },
    'effective-date': { type: 'string' },
    correction: { type: 'boolean', default: false },
    dataset: { type: 'string', default: DEFAULT_DIRS.dataset },
    site: { type: 'string' },
    baseline: { type: 'boolean', default: false },
  },
} as const;

const { values } = readArgs(spec);
const root = resolve(values.dataset);
function fail(message: string): never {
  console.error(`${message}. Nothing was written.`);
  process.exit(1);
}

if (values.baseline) {
  const refused = startCoverage(root);
  if (refused) fail(refused);
  console.log(`started ${root}/covered/: every class is covered by the newest entry naming it`);
  process.exit(0);
}
const summary = values.summary?.replace(/\s+/g, ' ').trim();
if (summary !== undefined && (!summary || summary.startsWith('-'))) {
  usageExit(spec, `--summary must be a sentence saying what changed, not "${values.summary}"`);
}
const now = new Date();
const effectiveDate = values['effective-date'] ?? now.toISOString().slice(0, 10);
const real = /^\d{4}-\d{2}-\d{2}$/.test(effectiveDate) && !Number.isNaN(Date.parse(`${effectiveDate}T00:00:00Z`));
if (!real || new Date(`${effectiveDate}T00:00:00Z`).toISOString().slice(0, 10) !== effectiveDate) {
  usageExit(spec, `--effective-date must be a date that exists, as YYYY-MM-DD, not "${effectiveDate}"`);
}

const live = values.site ? readLiveBuild(resolve(values.site)) : null;
const result = draftChangelog(root, {
  summary,
  effectiveDate,
  now,
  correction: values.correction,
  oldRecords: live?.records,
});
if (!result.ok) {
  if (summary === undefined && result.reason.startsWith('--summary')) usageExit(spec, result.reason);
  for (const e of result.errors) console.error(formatError(e));
  fail(`${result.errors.length ? '\n' : ''}${result.reason[0]!.toUpperCase()}${result.reason.slice(1)}`);
}
for (const entry of result.entries) {
  const year = entry.correction ? `${correctionTitle(entry.crop_year).toLowerCase()}` : `crop year ${entry.crop_year}`;
  console.log(`appended ${entry.id} (${year}): ${entry.grain_ids_affected.join(', ')}`);
  for (const c of entry.changes ?? []) console.log(`  ${c.grain_id} ${describeChange(c)}`);
}
console.log('Next: review dataset/changelog.yaml, run npm run build, then commit dataset/ (covered/ included).');
