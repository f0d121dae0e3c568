// @ts-check
// npm run build, backup, accounts, rollback, sync, grade, client:pack, changelog: the command's bundle
// (scripts/bundle-node.mjs), made first when missing or older than the sources, run by node itself:
// no TypeScript loader, so they work on the production dependencies alone. Errors point at the
// TypeScript: source maps are on.
//   node scripts/run.mjs <build|backup|accounts|rollback|sync|grade|client-pack|changelog|tuf> [its arguments]
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BundleError, ENTRIES, freshBundles } from './bundle-node.mjs';

const name = process.argv[2] ?? '';
if (!Object.hasOwn(ENTRIES, name) || name === 'gateway' || name === 'startup') {
  console.error(
    `usage: node scripts/run.mjs <${Object.keys(ENTRIES)
      .filter((e) => e !== 'gateway' && e !== 'startup')
      .join('|')}> [arguments]`,
  );
  process.exit(2);
}
process.setSourceMapsEnabled(true);
const dist = await freshBundles().catch((err) => {
  if (!(err instanceof BundleError)) throw err;
  console.error(`${err.message}.`);
  process.exit(1);
});
process.argv.splice(2, 1); // the command reads its own arguments from argv[2] on
await import(pathToFileURL(join(dist, `${name}.js`)).href);
