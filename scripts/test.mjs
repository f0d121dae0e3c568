// @ts-check
// npm test's runner: node's test runner with its own report, as node chooses it (spec on a
// terminal, TAP elsewhere, whose `# pass N` and `# fail N` CI reads), and then a last line saying
// how many tests were skipped and why, grouped by reason (scripts/test-skips.mjs collects them). A
// test skips where what it needs is missing (docs/operations.md, CI). The files run from their
// bundles (scripts/test-bundle.mjs), the longest first (scripts/test-times.mjs, test-clock.mjs), and
// the gateway's and the CLIs' bundles the tests start are the run's own (test/helpers/bundles.ts).
//   node scripts/test.mjs [node's test options: --test-concurrency=4] <test files>
//   node scripts/test.mjs --quick [node's test options] [test files]: the quick tier
//     (scripts/test-tiers.mjs), or the files named, with the guard that fails a test file there that
//     starts a child process (test-quick-guard.mjs)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BundleError, bundleNode } from './bundle-node.mjs';
import { bundleTests, runsFolder, testCache } from './test-bundle.mjs';
import { quickTier } from './test-tiers.mjs';
import { keepTimes, longestFirst } from './test-times.mjs';

const here = (/** @type {string} */ name) => fileURLToPath(new URL(name, import.meta.url));
const quick = process.argv.includes('--quick');
const isTestFile = (/** @type {string} */ arg) => /\.test\.[cm]?[jt]s$/.test(arg);
const args = process.argv.slice(2).filter((arg) => arg !== '--quick' && arg !== '--test');
const named = args.filter(isTestFile).map((file) => resolve(file));
const testDir = here('../test/');
const files = named.length || !quick ? named : quickTier(testDir);
if (files.length === 0) {
  console.error('usage: node scripts/test.mjs [--quick] [node test options] <test files>');
  process.exit(2);
}

// a run killed before its end leaves its folder: one whose process is gone is removed here
const runs = runsFolder();
mkdirSync(runs, { recursive: true });
for (const pid of readdirSync(runs)) if (!alive(Number(pid))) rmSync(join(runs, pid), { recursive: true, force: true });
const out = join(runs, String(process.pid));
rmSync(out, { recursive: true, force: true }); // a folder left by an earlier process of this id
const record = join(testCache(), 'times.json');
// the record keeps the project's test files by name (a runner's own test runs files from elsewhere)
const recordName = (/** @type {string} */ path) =>
  path.startsWith(testDir) ? `test/${path.slice(testDir.length)}` : undefined;
const ordered = longestFirst(
  files.map((path) => ({ path, name: recordName(path) ?? path })),
  record,
).map((f) => f.path);
/** @type {Map<string, string>} */
let bundles;
// the gateway's and the CLIs' bundles the tests start: the run's own, made once before any test
// starts (a run inside a test, the runner's own test, uses its outer run's); the quick tier starts
// no process
let dist = process.env.TEST_DIST_DIR;
try {
  if (!quick && !dist) dist = await bundleNode(join(out, 'dist'));
  bundles = await bundleTests(ordered, out);
} catch (err) {
  if (!(err instanceof BundleError) && !(err && typeof err === 'object' && 'errors' in err)) throw err;
  console.error(err instanceof BundleError ? `${err.message}.` : 'esbuild reported the errors above.');
  process.exit(1);
}
const sourceOf = new Map([...bundles].map(([source, bundle]) => [bundle, source]));

const skipsFile = join(out, 'skips.jsonl');
const timesFile = join(out, 'times.jsonl');
const own = process.stdout.isTTY ? 'spec' : 'tap';
const quickGuard = quick ? ['--import', here('./test-quick-guard.mjs')] : [];
const run = spawnSync(
  process.execPath,
  [
    '--enable-source-maps',
    ...['--test-reporter', own, '--test-reporter-destination', 'stdout'],
    ...['--test-reporter', here('./test-skips.mjs'), '--test-reporter-destination', skipsFile],
    ...['--import', here('./test-clock.mjs')],
    ...quickGuard,
    ...args.filter((arg) => !isTestFile(arg)),
    '--test',
    ...ordered.map((file) => /** @type {string} */ (bundles.get(file))),
  ],
  { stdio: 'inherit', env: { ...process.env, TEST_TIMES: timesFile, ...(dist && { TEST_DIST_DIR: dist }) } },
);

const read = (/** @type {string} */ file) => (existsSync(file) ? readFileSync(file, 'utf8') : '');
try {
  keepTimes(read(timesFile), record, (bundle) => {
    const source = sourceOf.get(bundle);
    return source && recordName(source);
  });
} catch (err) {
  // the times only order the next run: a run that cannot keep them says so, and its result stands
  console.error(`the test files' times were not kept: ${/** @type {Error} */ (err).message}`);
}
/** @type {{ file: string, name: string, reason: string }[]} */
const skips = read(skipsFile)
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l));
rmSync(out, { recursive: true, force: true });
/** @type {Map<string, string[]>} */
const byReason = new Map();
// a test made by a helper (test/helpers/suite.ts skips a whole suite) is named, not its helper's file
/** @param {{ file: string, name: string }} s */
const nameOf = (s) => {
  const file = sourceOf.get(s.file) ?? s.file;
  return !file || /[\\/]helpers[\\/]/.test(file) ? s.name : basename(file);
};
for (const s of skips) byReason.set(s.reason, [...(byReason.get(s.reason) ?? []), nameOf(s)]);
const reasons = [...byReason].map(
  ([reason, names]) => `${names.length} × "${reason}" (${[...new Set(names)].join(', ')})`,
);
const needs = 'what each needs and where to get it: docs/operations.md, CI';
console.log(`skipped tests: ${skips.length ? `${skips.length}: ${reasons.join('; ')} (${needs})` : 'none'}`);
process.exit(run.status ?? 1);

/** @param {number} pid */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return /** @type {NodeJS.ErrnoException} */ (err).code === 'EPERM';
  }
}
