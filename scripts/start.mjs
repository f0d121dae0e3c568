// @ts-check
// npm start: the production gateway, run by node itself (no loader, no shell or wrapper left in
// the chain that receives signals: package.json execs it). Before it starts, once:
// - the bundle (dist/gateway, or GATEWAY_DIST) is made when it is missing or older than the
//   sources, saying so in a line (build/bundle-gateway.mjs);
// - when no build is published in SITE_DIR, the dataset in DATASET_DIR is built (npm run build's
//   command, in a process of its own: the gateway only serves builds).
// Errors point at the TypeScript: source maps are on.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DEFAULT_OUT, root } from '../build/bundle-gateway.mjs';

process.setSourceMapsEnabled(true);
const out = process.env.GATEWAY_DIST ? resolve(process.env.GATEWAY_DIST) : DEFAULT_OUT;
const entry = join(out, 'index.js');

/** @param {string} dir @returns {number} the newest mtime of the TypeScript under dir */
const newest = (dir) =>
  Math.max(
    0,
    ...readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .map((f) => statSync(join(root, dir, f)).mtimeMs),
  );

const sources = Math.max(newest('gateway'), newest('build'), statSync(join(root, 'package-lock.json')).mtimeMs);
if (!existsSync(entry) || statSync(entry).mtimeMs < sources) {
  console.error(`bundling the gateway: ${existsSync(entry) ? 'its sources are newer than' : 'there is no'} ${out}`);
  const run = spawnSync(process.execPath, [join(root, 'build/bundle-gateway.mjs'), out], { stdio: 'inherit' });
  if (run.status !== 0) process.exit(1);
}

const siteDir = resolve(process.env.SITE_DIR || 'site');
if (!existsSync(join(siteDir, 'current.json'))) {
  console.error(`no build is published in ${siteDir}: building the dataset first`);
  const dataset = resolve(process.env.DATASET_DIR || 'dataset');
  const cli = join(root, 'build/index.ts');
  const args = ['--import', 'tsx', cli, '--dataset', dataset, '--out', siteDir, '--no-gateway'];
  const run = spawnSync(process.execPath, args, { stdio: 'inherit' });
  if (run.status !== 0) process.exit(1);
}

await import(pathToFileURL(entry).href);
