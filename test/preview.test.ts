// tier: full (the preview CLI)
// npm run preview (docs/dataset-editing.md, "Workflow", step 6), run as an editor runs it, on a
// copy of the dataset with one changed threshold: against the published build, and against the
// last commit when none is published. It marks exactly that cell, says so, renders although the
// build refuses the unlogged change, and publishes nothing.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { POINTER_FILE } from '../build/site-format.ts';
import { buildSite } from './helpers/build.ts';
import { tempDir } from './helpers/dataset.ts';
import { realSiteDir, root } from './helpers/gateway.ts';
import { changedCell, readTable } from './helpers/table-page.ts';

/** A copy of the dataset; `edit` changes CWRS's ergot limit for No. 1 CWRS from 0.04 to 0.03. */
function copyDataset(): string {
  const dataset = join(tempDir('preview'), 'dataset');
  cpSync(join(root, 'dataset'), dataset, { recursive: true });
  return dataset;
}
function edit(dataset: string) {
  const file = join(dataset, 'grains/CWRS.yaml');
  const text = readFileSync(file, 'utf8');
  const from = 'factor_label: Ergot\n        thresholds: [0.04,';
  assert.equal(text.split(from).length, 2);
  writeFileSync(file, text.replace(from, 'factor_label: Ergot\n        thresholds: [0.03,'));
}

function preview(dataset: string, site: string) {
  const out = tempDir('preview-out');
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', 'scripts/preview.ts', '--out', out, '--dataset', dataset, '--site', site],
    { cwd: root, encoding: 'utf8', env: { ...process.env, SITE_DIR: '' } },
  );
  assert.equal(r.status, 0, r.stderr);
  return { out, stdout: r.stdout };
}

/** Every page's marked cells, by class. */
function marked(out: string): Record<string, string[]> {
  const pages = readdirSync(join(out, 'tables')).filter((f) => f !== 'index.html');
  assert.equal(pages.length, 23);
  const all: Record<string, string[]> = {};
  for (const file of pages) {
    const { changed } = readTable(readFileSync(join(out, 'tables', file), 'utf8'));
    if (changed.length) all[file] = changed;
  }
  return all;
}

describe('npm run preview', () => {
  it('marks exactly the changed cell against the published build, and publishes nothing', async () => {
    const dataset = copyDataset();
    edit(dataset);
    const refused = await buildSite(dataset);
    assert.ok(!refused.ok, 'the build refuses the unlogged change');
    const site = realSiteDir();
    const pointer = readFileSync(join(site, POINTER_FILE), 'utf8');
    const { out, stdout } = preview(dataset, site);
    assert.match(stdout, /^compared with the published build [0-9a-f]{16}$/m);
    assert.match(stdout, /^CWRS: 1 change\(s\), 1 cell\(s\)/m);
    assert.match(stdout, /^ {2}ergot at "No\. 1 CWRS": value 0\.04 → 0\.03$/m);
    assert.deepEqual(marked(out), { 'CWRS.html': ['Ergot % › No. 1 CWRS'] });
    const table = readTable(readFileSync(join(out, 'tables/CWRS.html'), 'utf8'));
    assert.deepEqual(changedCell(table.rows.get('Foreign material › Ergot %')![0]!), { now: '0.03', was: '0.04' });
    // the pages link their own copies, so the folder opens as it is
    const page = readFileSync(join(out, 'tables/CWRS.html'), 'utf8');
    assert.match(page, /href="\.\.\/assets\/site\.css"/);
    assert.match(page, /href="index\.html"/);
    assert.equal(
      readFileSync(join(out, 'assets/site.css'), 'utf8'),
      readFileSync(join(root, 'build/pages/assets/site.css'), 'utf8'),
    );
    assert.equal(readFileSync(join(site, POINTER_FILE), 'utf8'), pointer, 'nothing published');
    for (const file of ['changelog.yaml', 'covered/CWRS.json']) {
      const [copy, original] = [dataset, join(root, 'dataset')].map((d) => readFileSync(join(d, file), 'utf8'));
      assert.equal(copy, original, `${file}: no entry drafted, nothing covered`);
    }
  });

  it('compares with the last commit when no build is published', () => {
    const dataset = copyDataset();
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=Editor', '-c', 'user.email=editor@example.com', ...args], {
        cwd: dataset,
        stdio: 'pipe',
      });
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'the dataset as committed');
    edit(dataset);
    const { out, stdout } = preview(dataset, join(tempDir('no-site'), 'site'));
    assert.match(stdout, /^compared with the last commit \(git HEAD\)$/m);
    assert.match(stdout, /^ {2}ergot at "No\. 1 CWRS": value 0\.04 → 0\.03$/m);
    assert.deepEqual(marked(out), { 'CWRS.html': ['Ergot % › No. 1 CWRS'] });
  });
});
