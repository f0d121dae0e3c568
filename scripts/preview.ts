// npm run preview -- --out DIR: the working tree's tables as pages, each cell that differs from the
// published build (or from the last commit) marked; prints what changed. Never publishes
// (build/pages/preview.ts; docs/dataset-editing.md, "Workflow", step 6).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describeChange } from '../build/changelog/diff.ts';
import { readArgs, usageExit } from '../build/cli-args.ts';
import { loadDataset } from '../build/load/load.ts';
import { committedBaseline, publishedBaseline, renderPreview } from '../build/pages/preview.ts';
import { DEFAULT_DIRS } from '../build/site-format.ts';
import { createSchemaChecks } from '../build/validate/schema-errors.ts';
import { formatError, validateDataset } from '../build/validate/validate.ts';

const spec = {
  command: 'npm run preview --',
  usage: '--out DIR [--dataset DIR] [--site DIR]',
  help: `
Renders every class's table from the dataset as it is in the working tree, with the build's own
renderer, into DIR/tables/ (open DIR/tables/index.html), and marks every cell that differs from the
published build in --site, or, when none is published there, from the last commit's dataset (git
HEAD). Prints the classes and cells that changed. It renders changes the build would refuse (one
with no changelog entry yet) and publishes nothing.

  --out DIR      where the pages go (required; files of the same names are replaced)
  --dataset DIR  the dataset folder (default: dataset)
  --site DIR     the published site to compare with (default: SITE_DIR, else site)

Exit codes: 0 rendered, 1 the dataset has errors (listed), 2 usage.`,
  options: {
    out: { type: 'string' },
    dataset: { type: 'string', default: DEFAULT_DIRS.dataset },
    site: { type: 'string', default: process.env.SITE_DIR || DEFAULT_DIRS.site },
  },
} as const;

const { values } = readArgs(spec);
if (!values.out) usageExit(spec, '--out is required');
const datasetDir = resolve(values.dataset);
const { errors, dataset } = validateDataset(loadDataset(datasetDir), createSchemaChecks());
if (!dataset) {
  for (const e of errors) console.error(formatError(e));
  console.error(`the dataset has ${errors.length} error(s): nothing rendered`);
  process.exit(1);
}
const ids = dataset.grains.map((g) => g.grain_id);
const baseline = publishedBaseline(resolve(values.site)) ?? committedBaseline(datasetDir, ids);
const preview = renderPreview(dataset, baseline);
const out = resolve(values.out);
for (const [path, text] of preview.files) {
  mkdirSync(dirname(join(out, path)), { recursive: true });
  writeFileSync(join(out, path), text);
}
console.log(baseline ? `compared with ${baseline.name}` : 'nothing to compare with: no published build, no git HEAD');
for (const { grain_id, changes } of preview.changed) {
  const cells = changes.filter((c) => c.grade !== null).length;
  console.log(
    `${grain_id}: ${changes.length} change(s), ${cells} cell(s) (${join(out, 'tables', `${grain_id}.html`)})`,
  );
  for (const c of changes) console.log(`  ${describeChange(c)}`);
}
if (baseline && !preview.changed.length) console.log('no class differs');
console.log(`wrote ${preview.files.size} files: open ${join(out, 'tables', 'index.html')}`);
