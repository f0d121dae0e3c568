// @ts-check
// Loaded into every test process of `npm run test:quick` (scripts/test.mjs --quick): the quick tier
// runs no child process and no browser (which is one), so a suite there that starts one fails at
// once, saying where it belongs, instead of making the edit-run loop slow without anyone noticing.
// Not caught: the esbuild service the build's bundler starts from a worker thread of its own (the
// build's, run in process by the tests that build, not a program the test runs).
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';

const starters = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'];
const refuse = (/** @type {string} */ name) => () => {
  throw new Error(`npm run test:quick runs no child process (${name}): mark this test file "// tier: full"`);
};

// Only where a test file runs: the runner itself starts those files as child processes.
if (process.env.NODE_TEST_CONTEXT) {
  // and a test that would need one (test/helpers/redis.ts) skips, saying so
  process.env.TEST_TIER = 'quick';
  for (const name of starters) Object.assign(childProcess, { [name]: refuse(name) });
  // the named imports (import { spawn } from 'node:child_process') follow the module's properties
  syncBuiltinESMExports();
}
