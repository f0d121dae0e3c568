// @ts-check
// npm start: the production gateway, run by node itself (no loader, no shell or wrapper left in
// the chain that receives signals: package.json execs it). Before it starts, once:
// - the bundles (dist/, or DIST_DIR) are made when missing or older than the sources, saying so in
//   a line (scripts/bundle-node.mjs);
// - when no build is published in SITE_DIR, the dataset in DATASET_DIR is built (npm run build's
//   bundle, in a process of its own so its memory does not stay in the gateway's), saying so.
// This is the one place that builds: the gateway itself only serves a published build.
// Errors point at the TypeScript: source maps are on.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BundleError, freshBundles } from './bundle-node.mjs';

process.setSourceMapsEnabled(true);
const dist = await freshBundles().catch((err) => {
  if (!(err instanceof BundleError)) throw err;
  console.error(`${err.message}.`);
  process.exit(1);
});
/** @type {import('../gateway/startup.ts')} */
const startup = await import(pathToFileURL(join(dist, 'startup.js')).href);
const config = startup.configOrExit(process.env);

if (!startup.isPublished(config)) {
  startup.refuseUnlessBuildable(config);
  console.error(`no build is published in ${config.siteDir}: building the dataset in ${config.datasetDir} first`);
  const args = [join(dist, 'build.js'), '--dataset', config.datasetDir, '--out', config.siteDir];
  const run = spawnSync(process.execPath, ['--enable-source-maps', ...args], { stdio: 'inherit' });
  if (run.status !== 0) process.exit(1);
}

await import(pathToFileURL(join(dist, 'gateway.js')).href);
