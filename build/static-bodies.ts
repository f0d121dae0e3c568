// The bodies that come from files rather than the dataset: the pages' stylesheet, scripts and
// icon as written, and the code that runs at the user's bundled by esbuild (bundle.ts). Not pure:
// it reads the files; deterministic all the same (the same sources give the same bytes).
import { readFileSync } from 'node:fs';
import { bundleClient } from './bundle.ts';

const asset = (name: string) => readFileSync(new URL(`./pages/assets/${name}`, import.meta.url), 'utf8');

export function staticBodies(): Map<string, string> {
  return new Map([
    ['/assets/site.css', asset('site.css')],
    ['/assets/page.js', asset('page.js')],
    ['/assets/grade-page.js', asset('grade-page.js')],
    ['/assets/icon.svg', asset('icon.svg')],
    ...bundleClient(),
  ]);
}
