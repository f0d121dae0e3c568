// The bodies that come from files rather than the dataset: the pages' stylesheet, scripts and
// icon as written, the code that runs at the user's bundled by esbuild (client-bundle.ts), and the
// client package's tarball (pack.ts). Each is served under its plain name and under a
// content-addressed one (site-format.ts); the pages link the content-addressed names
// (linkContentAddressed). Not pure: it reads the files; deterministic all the same (the same
// sources give the same bytes).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../project-root.mjs';
import { CLIENT_TARBALL, CONTENT_LINK, contentAddressed, fileIn } from '../site-format.ts';
import { bundleClient } from './client-bundle.ts';
import { clientTarball } from './pack.ts';

/** A file of the pages' assets (build/pages/assets/), as written: the build's and the preview's. */
export const readAsset = (name: string) => readFileSync(join(projectRoot(), 'build/pages/assets', name), 'utf8');
const sha256 = (body: string | Buffer) => createHash('sha256').update(body).digest('hex');

/** Plain name → content-addressed name, for every file the pages may link. */
export type AddressBook = Map<string, string>;

export type StaticBodies = { bodies: Map<string, string | Buffer>; addresses: AddressBook };

export function staticBodies(): StaticBodies {
  const files = new Map<string, string | Buffer>([
    ...['site.css', 'page.js', 'grade-page.js', 'icon.svg'].map((name): [string, string] => [
      fileIn('assets', name),
      readAsset(name),
    ]),
    ...bundleClient(),
    [CLIENT_TARBALL, clientTarball()],
  ]);
  const bodies = new Map<string, string | Buffer>();
  const addresses: AddressBook = new Map();
  for (const [route, text] of files) {
    const addressed = contentAddressed(route, sha256(text));
    addresses.set(route, addressed);
    bodies.set(route, text).set(addressed, text);
  }
  return { bodies, addresses };
}

/** A page's links to the files in the book (`src="…/page.js"`) rewritten to their content-addressed names. */
export function linkContentAddressed(html: string, addresses: AddressBook): string {
  return html.replace(CONTENT_LINK, (link, attribute: string, route: string) => {
    const addressed = addresses.get(route);
    return addressed ? `${attribute}="${addressed}"` : link;
  });
}
