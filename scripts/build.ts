// npm run build [-- --dataset DIR --out DIR]: validate the dataset, check that every change to a
// published record is named by a changelog entry (against what the dataset's changelog covers and
// against the build live in --out), then publish every response body. It runs as its bundle
// (scripts/run.mjs makes the bundles first when the sources changed: scripts/bundle-node.mjs).
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildKit, buildSite } from '../build/build-site.ts';
import { describeChange } from '../build/changelog/diff.ts';
import { DRAFT_COMMAND, type Unlogged } from '../build/changelog/guard.ts';
import { readArgs } from '../build/cli-args.ts';
import { folderEncodings } from '../build/emit/encoding-cache.ts';
import { folderFiles } from '../build/publish/build-files.ts';
import { livePointer, publishStaged, stagingDir } from '../build/publish/publish.ts';
import { DEFAULT_DIRS } from '../build/site-format.ts';
import { publishEdition } from '../build/tuf/publish-edition.ts';
import { formatError } from '../build/validate/validate.ts';

const ENCODINGS_CACHE = 'node_modules/.cache/encodings';

const { values } = readArgs({
  command: 'npm run build --',
  usage: '[--dataset DIR] [--out DIR] [--state DIR] [--cache DIR]',
  help: `
Validates the dataset, checks that every change to a published record is named by a changelog
entry (docs/dataset-editing.md), then publishes every response body as a new build, which a
running gateway swaps in. Nothing is published when anything is wrong.

  --dataset DIR  the dataset to build (default: DATASET_DIR, else ${DEFAULT_DIRS.dataset})
  --out DIR      where builds are published (default: SITE_DIR, else ${DEFAULT_DIRS.site})
  --state DIR    the signing keys of the signed editions, in tuf-keys/ (default: STATE_DIR, else
                 ${DEFAULT_DIRS.state}); a development set is made there when a site has no root yet
  --cache DIR    the last build's encodings, reused for the bodies that did not change (default:
                 ${ENCODINGS_CACHE}); the build is the same bytes without it

Exit codes: 0 published, 1 refused (the reasons are printed), 2 usage.`,
  options: {
    dataset: { type: 'string', default: process.env.DATASET_DIR || DEFAULT_DIRS.dataset },
    out: { type: 'string', default: process.env.SITE_DIR || DEFAULT_DIRS.site },
    state: { type: 'string', default: process.env.STATE_DIR || DEFAULT_DIRS.state },
    cache: { type: 'string', default: ENCODINGS_CACHE },
  },
});
const started = performance.now();
const out = resolve(values.out!);
// the encodings of the last build, so a small edit compresses only what it changed (docs/performance.md, Growth)
const encodings = folderEncodings(resolve(values.cache!));
// written into a folder beside the live builds as the bodies are made, then swapped in (publish.ts)
const serving = livePointer(out);
const staged = folderFiles(stagingDir(out), serving && join(out, serving.dir));
const result = await buildSite(resolve(values.dataset!), { siteDir: out, kit: buildKit({ encodings }), files: staged });
if (!result.ok) rmSync(staged.dir, { recursive: true, force: true });

/** Each class's changes in a line, and the command that drafts their entry. */
function sayUnlogged(unlogged: Unlogged[], against: string) {
  if (!unlogged.length) return;
  console.error(`\nChanged with no changelog entry naming them (${against}):`);
  for (const u of unlogged)
    console.error(`  ${u.grain_id}: ${u.changes.length} change(s), e.g. ${describeChange(u.changes[0]!)}`);
  console.error(`Draft the entry, review it, build again and commit:\n  ${DRAFT_COMMAND}`);
}

if (!result.ok && result.against) {
  for (const u of result.unlogged) for (const c of u.changes) console.error(`${u.grain_id}: ${describeChange(c)}`);
  sayUnlogged(result.unlogged, `against the live build ${result.against.build_id} in ${out}`);
  console.error('\nnothing was published.');
  process.exit(1);
}
if (!result.ok) {
  for (const e of result.errors) console.error(formatError(e));
  sayUnlogged(result.unlogged, 'against what the changelog covers, dataset/covered/');
  console.error(`\n${result.errors.length} error${result.errors.length === 1 ? '' : 's'}; nothing was published.`);
  process.exit(1);
}
const { live } = result;
const { manifest, files } = result.site;
// its signed edition first, the versions above the last (docs/operations.md, "Signed editions"): keys
// that cannot sign it refuse the build before anything is published
let edition: ReturnType<typeof publishEdition>;
try {
  edition = publishEdition(manifest, { siteDir: out, stateDir: resolve(values.state!), now: Date.now() });
} catch (err) {
  rmSync(staged.dir, { recursive: true, force: true });
  console.error(`${(err as Error).message}\nnothing was published.`);
  process.exit(1);
}
const { dir, reused } = publishStaged(out, staged, manifest);
encodings.keepOnlyUsed();
if (edition.developmentKeys)
  console.log(`made development signing keys in ${resolve(values.state!)}/tuf-keys: for development only`);
// After a rollback the same dataset gives a build the site already holds: it is served again
const served = live?.build_id === manifest.build_id;
const what = !reused ? 'published' : served ? 'unchanged:' : `served again (was ${live?.build_id ?? 'none'}):`;
console.log(
  `${what} build ${manifest.build_id} in ${dir}: ` +
    `${Object.keys(manifest.routes).length} routes, ` +
    `${Object.keys(manifest.bodies).length} distinct bodies, ${files.count} files, ` +
    `${(files.bytes / 1024).toFixed(0)} KiB, ` +
    `${Math.round(performance.now() - started)} ms; ` +
    `signed edition: targets ${edition.versions.targets}, root ${edition.versions.root}`,
);
