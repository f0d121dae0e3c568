// npm run build [-- --dataset DIR --out DIR]: validate the dataset, then publish every response body.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { buildSite } from './build-site.ts';
import { publishSite } from './publish.ts';
import { formatError } from './validate.ts';

const { values } = parseArgs({
  options: {
    dataset: { type: 'string', default: 'dataset' },
    out: { type: 'string', default: process.env.SITE_DIR ?? 'site' },
  },
});
const started = performance.now();
const result = buildSite(resolve(values.dataset!));
if (!result.ok) {
  for (const e of result.errors) console.error(formatError(e));
  console.error(`\n${result.errors.length} error${result.errors.length === 1 ? '' : 's'}; nothing was published.`);
  process.exit(1);
}
const { manifest, files } = result.site;
const { dir, reused } = publishSite(resolve(values.out!), result.site);
const bytes = [...files.values()].reduce((n, b) => n + b.length, 0);
console.log(
  `${reused ? 'unchanged' : 'published'} build ${manifest.build_id} in ${dir}: ${Object.keys(manifest.routes).length} routes, ` +
    `${Object.keys(manifest.bodies).length} distinct bodies, ${files.size} files, ${(bytes / 1024).toFixed(0)} KiB, ` +
    `${Math.round(performance.now() - started)} ms`,
);
