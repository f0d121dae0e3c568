// npm run client:pack: writes the client package's tarball (build/client/package/pack.ts) to
// dist/grain-tables-client-<version>.tgz, and prints its path as the last line.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLIENT_PACKAGE, clientTarball } from '../build/client/package/pack.ts';
import { CLIENT_VERSION } from '../build/client/package/version.ts';
import { projectRoot } from '../build/project-root.mjs';

const root = projectRoot();
const file = join(root, 'dist', `${CLIENT_PACKAGE}-${CLIENT_VERSION}.tgz`);
const tarball = clientTarball();
mkdirSync(join(root, 'dist'), { recursive: true });
writeFileSync(file, tarball);
console.log(`${tarball.length} bytes`);
console.log(file);
