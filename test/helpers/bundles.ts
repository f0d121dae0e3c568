// The gateway and the CLIs as a test starts them: from their bundles (scripts/bundle-node.mjs), as
// npm start and npm run accounts, grade, sync or build run them, not from the sources through tsx.
// So a test runs what production runs, and a process starts without a TypeScript loader (a thread
// that compiles every module), which is most of what a short CLI run costs (docs/performance.md,
// "The test suite's time"). They are kept in node_modules/.cache/tests/dist, made again when a
// source is newer (freshBundles, as npm start does); scripts/test.mjs makes them before the first
// test file starts, so the files of a run share them.
import { join } from 'node:path';
import { type ENTRIES, freshBundles } from '../../scripts/bundle-node.mjs';
import { testDist } from '../../scripts/test-bundle.mjs';

let made: Promise<string> | undefined;

/** node's arguments that run the bundle `name` with `args`, source maps on as npm start has them. */
export async function bundled(name: keyof typeof ENTRIES, ...args: string[]): Promise<string[]> {
  made ??= freshBundles(testDist());
  return ['--enable-source-maps', join(await made, `${name}.js`), ...args];
}
