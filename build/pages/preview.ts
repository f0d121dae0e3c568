// npm run preview (docs/dataset-editing.md, "Workflow", step 6): the working tree's dataset
// rendered as the tables' pages by the build's own renderer, every cell that differs from a
// baseline marked: the published build's records (SITE_DIR), else the records the last commit
// covers (`git show HEAD:dataset/covered/<id>.json`). It renders a dataset the build would refuse
// (an unlogged change is what an editor reviews) and never publishes.
import { execFileSync } from 'node:child_process';
import { diffRecords } from '../changelog/diff.ts';
import { readLiveBuild } from '../changelog/live.ts';
import { publishedJson } from '../compile/published.ts';
import { COVERED_DIR, type RecordJson } from '../load/covered.ts';
import { readAsset } from '../pack/static-bodies.ts';
import { fileIn } from '../site-format.ts';
import type { Change } from '../types.ts';
import type { Dataset } from '../validate/validate.ts';
import { html } from './html.ts';
import { renderTablePage } from './table-page.ts';
import { renderTablesIndex } from './tables-index.ts';

/** What the working tree is compared with: its records by class, and how the pages name it. */
export interface Baseline {
  name: string;
  records: Map<string, RecordJson>;
}

/** The build published in `siteDir`, or null when none is. */
export function publishedBaseline(siteDir: string): Baseline | null {
  const live = readLiveBuild(siteDir);
  return live && { name: `the published build ${live.build_id}`, records: live.records };
}

/** The records the dataset's last commit covers (covered/<id>.json at HEAD), or null outside a repository. */
export function committedBaseline(datasetDir: string, grainIds: string[]): Baseline | null {
  const git = (args: string[]) => execFileSync('git', args, { cwd: datasetDir, encoding: 'utf8', stdio: 'pipe' });
  try {
    git(['rev-parse', '--verify', 'HEAD']);
  } catch {
    return null;
  }
  const records = new Map<string, RecordJson>();
  for (const id of grainIds) {
    try {
      const covered = JSON.parse(git(['show', `HEAD:./${COVERED_DIR}/${id}.json`])) as { record: RecordJson | null };
      if (covered.record) records.set(id, covered.record);
    } catch {
      // a class the last commit did not have: new, every cell of it differs
    }
  }
  return { name: 'the last commit (git HEAD)', records };
}

export interface Preview {
  /** Path under the output folder → text. */
  files: Map<string, string>;
  /** The classes that differ from the baseline, in the list's order, with their changes. */
  changed: { grain_id: string; changes: Change[] }[];
}

const page = (id: string) => `${id}.html`;
/** The pages sit in tables/; the stylesheet and icon they link, beside it in assets/. */
const ASSETS = ['site.css', 'icon.svg'];
const localLinks = (text: string) => text.replaceAll(`"${fileIn('assets', '')}`, '"../assets/');

export function renderPreview(dataset: Dataset, baseline: Baseline | null): Preview {
  const files = new Map<string, string>();
  const changed: Preview['changed'] = [];
  for (const g of dataset.grains) {
    const now = publishedJson(g);
    const changes = baseline ? diffRecords(g.grain_id, baseline.records.get(g.grain_id) ?? null, now) : [];
    if (changes.length) changed.push({ grain_id: g.grain_id, changes });
    const intro = html`Preview of the working tree: the marked cells differ from ${baseline?.name}.`;
    const text = renderTablePage(g, {
      years: [g.effective_crop_year],
      marks: changes.length ? { intro, changes } : null,
      href: page,
      indexHref: 'index.html',
    });
    files.set(`tables/${page(g.grain_id)}`, localLinks(text));
  }
  files.set('tables/index.html', localLinks(renderTablesIndex(dataset.grains, page, { changelog: dataset.changelog })));
  for (const name of ASSETS) files.set(`assets/${name}`, readAsset(name));
  return { files, changed };
}
