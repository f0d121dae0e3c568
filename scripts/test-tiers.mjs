// @ts-check
// The quick tier (npm run test:quick, docs/operations.md, CI): every test file in a folder but those
// marked `// tier: full` in their first lines, because they start a browser or a child process.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const FULL = /^\/\/ tier: full\b/m;
/** How far down a file its marker may be: the header comment, before the imports. */
const HEAD_LINES = 12;

/** @param {string} testDir @returns {string[]} the quick tier's test files, as paths, in name order */
export function quickTier(testDir) {
  const head = (/** @type {string} */ file) =>
    readFileSync(join(testDir, file), 'utf8').split('\n', HEAD_LINES).join('\n');
  return readdirSync(testDir)
    .filter((file) => file.endsWith('.test.ts') && !FULL.test(head(file)))
    .sort()
    .map((file) => join(testDir, file));
}
