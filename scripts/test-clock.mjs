// @ts-check
// Loaded into every test process of scripts/test.mjs: when the process ends, a line saying how long
// it ran (from its start, loading included), added to the file TEST_TIMES names (scripts/test-times.mjs
// keeps them for the next run's order). Only in a test file's own process (NODE_TEST_CONTEXT), not in
// the runner nor in what a test starts. A line is far under what one write adds whole.
import { appendFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const into = process.env.TEST_TIMES;
if (into && process.env.NODE_TEST_CONTEXT && process.argv[1]) {
  const file = process.argv[1];
  process.on('exit', () => appendFileSync(into, `${JSON.stringify({ file, ms: Math.round(performance.now()) })}\n`));
}
