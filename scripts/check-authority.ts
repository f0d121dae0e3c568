// npm run check-authority [-- --pages DIR] [--dataset DIR]: every grain's authority page read again
// and compared with the dataset, cell by cell (build/import/check-dataset.ts); exit 1 on any
// difference or page not checked.
import { resolve } from 'node:path';
import { readArgs } from '../build/cli-args.ts';
import { checkAuthority } from '../build/import/check-dataset.ts';
import { DEFAULT_DIRS } from '../build/site-format.ts';

const { values } = readArgs({
  command: 'npm run check-authority --',
  usage: '[--pages DIR] [--dataset DIR]',
  help: `
Reads every class's page at the authority (its source_url), or the saved copies in DIR, and
prints where the dataset differs from it, cell by cell (docs/dataset-editing.md, step 3).

  --pages DIR    read saved copies instead of fetching: DIR/pages.tsv names each page's file
  --dataset DIR  the dataset to check (default ${DEFAULT_DIRS.dataset})

Exit codes: 0 the same as the authority, 1 a difference or a page not checked, 2 usage.`,
  options: { pages: { type: 'string' }, dataset: { type: 'string', default: DEFAULT_DIRS.dataset } },
});

const { differences, problems } = await checkAuthority(resolve(values.dataset!), values.pages, console);
process.exit(differences || problems ? 1 : 0);
