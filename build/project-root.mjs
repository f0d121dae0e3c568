// @ts-check
// The project's root folder: the nearest folder above this module holding package.json. Found, not
// counted, because this module runs from the sources (build/) and from the bundles (dist/ and its
// chunks/), at different depths; everything the build reads beside its sources is found from here.
// Found when asked, not at import: importing a build module touches no file.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** @returns {string} the project's root folder */
export function projectRoot() {
  const from = fileURLToPath(import.meta.url);
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}
