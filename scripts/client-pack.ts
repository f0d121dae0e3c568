// npm run client:pack: writes the client package's tarball (build/pack/pack.ts) to
// dist/grain-tables-client-<version>.tgz, and prints its path as the last line.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readArgs } from '../build/cli-args.ts';
import { CLIENT_VERSION } from '../build/client/version.ts';
import { CLIENT_PACKAGE, clientTarball } from '../build/pack/pack.ts';
import { projectRoot } from '../build/project-root.mjs';

readArgs({
  command: 'npm run client:pack --',
  usage: '',
  help: `Writes the client package grain-tables-client (docs/sync.md) to dist/${CLIENT_PACKAGE}-${CLIENT_VERSION}.tgz,
the tarball every build serves at /client/grain-tables-client.tgz, and prints its path as the last line.`,
  options: {},
});
const root = projectRoot();
const file = join(root, 'dist', `${CLIENT_PACKAGE}-${CLIENT_VERSION}.tgz`);
const tarball = clientTarball();
mkdirSync(join(root, 'dist'), { recursive: true });
writeFileSync(file, tarball);
console.log(`${tarball.length} bytes`);
console.log(file);
