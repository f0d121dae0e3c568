// The gateway and the CLIs as a test starts them: from their bundles (scripts/bundle-node.mjs), as
// npm start and npm run accounts, grade, sync or build run them, not from the sources through tsx.
// So a test runs what production runs, and a process starts without a TypeScript loader (a thread
// that compiles every module), which is most of what a short CLI run costs (docs/performance.md,
// "The test suite's time"). Under scripts/test.mjs they are the run's own, made before its first
// test file starts (TEST_DIST_DIR names them), so no test sees them change; a test file run on its
// own uses node_modules/.cache/tests/dist, made again when a source is newer, as npm start does.
import { join } from 'node:path';
import { type ENTRIES, freshBundles } from '../../scripts/bundle-node.mjs';
import { testDist } from '../../scripts/test-bundle.mjs';

let made: Promise<string> | undefined;

/** node's arguments that run the bundle `name` with `args`, source maps on as npm start has them. */
export async function bundled(name: keyof typeof ENTRIES, ...args: string[]): Promise<string[]> {
  const ofTheRun = process.env.TEST_DIST_DIR;
  made ??= ofTheRun ? Promise.resolve(ofTheRun) : freshBundles(testDist());
  return ['--enable-source-maps', join(await made, `${name}.js`), ...args];
}
