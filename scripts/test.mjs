// @ts-check
// npm test's runner: node's test runner with its own report, as node chooses it (spec on a
// terminal, TAP elsewhere, whose `# pass N` and `# fail N` CI reads), and then a last line saying
// how many tests were skipped and why, grouped by reason (scripts/test-skips.mjs collects them). A
// test skips where what it needs is missing (docs/operations.md, CI).
//   node scripts/test.mjs [node's arguments: --test-concurrency=4 --import tsx --test test/*.test.ts]
//   node scripts/test.mjs --quick [node's arguments, no files]: the quick tier (scripts/test-tiers.mjs)
//     with the guard that fails a test file there that starts a child process (test-quick-guard.mjs)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { quickTier } from './test-tiers.mjs';

const dir = mkdtempSync(join(tmpdir(), 'test-skips-'));
const skipsFile = join(dir, 'skips.jsonl');
const reporter = fileURLToPath(new URL('./test-skips.mjs', import.meta.url));
const own = process.stdout.isTTY ? 'spec' : 'tap';
const quick = process.argv.includes('--quick');
const quickGuard = quick ? ['--import', fileURLToPath(new URL('./test-quick-guard.mjs', import.meta.url))] : [];
// files named (npm run test:quick -- test/x.test.ts) are run instead of the whole tier
const filesNamed = process.argv.slice(2).some((arg) => /\.test\.[cm]?[jt]s$/.test(arg));
const quickFiles = quick && !filesNamed ? quickTier(fileURLToPath(new URL('../test/', import.meta.url))) : [];
const run = spawnSync(
  process.execPath,
  [
    ...['--test-reporter', own, '--test-reporter-destination', 'stdout'],
    ...['--test-reporter', reporter, '--test-reporter-destination', skipsFile],
    ...quickGuard,
    ...process.argv.slice(2).filter((arg) => arg !== '--quick'),
    ...quickFiles,
  ],
  { stdio: 'inherit' },
);

/** @type {{ file: string, name: string, reason: string }[]} */
let skips = [];
try {
  skips = readFileSync(skipsFile, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
} catch {
  // no file: the runner did not get as far as reporting
}
rmSync(dir, { recursive: true, force: true });
/** @type {Map<string, string[]>} */
const byReason = new Map();
// a test made by a helper (test/helpers/suite.ts skips a whole suite) is named, not its helper's file
/** @param {{ file: string, name: string }} s */
const named = (s) => (!s.file || /[\\/]helpers[\\/]/.test(s.file) ? s.name : basename(s.file));
for (const s of skips) byReason.set(s.reason, [...(byReason.get(s.reason) ?? []), named(s)]);
const reasons = [...byReason].map(
  ([reason, names]) => `${names.length} × "${reason}" (${[...new Set(names)].join(', ')})`,
);
const needs = 'what each needs and where to get it: docs/operations.md, CI';
console.log(`skipped tests: ${skips.length ? `${skips.length}: ${reasons.join('; ')} (${needs})` : 'none'}`);
process.exit(run.status ?? 1);
