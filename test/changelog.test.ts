// tier: full (the changelog and build CLIs)
// Every change has an entry (docs/dataset-editing.md): the build refuses a published record that
// changed with no changelog entry naming it, on a clean checkout and against the live build, and
// says which cells; `npm run changelog` drafts exactly the changed cells; published entries are
// append-only; a change the code makes to every record is caught as surely as an editor's.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { draftChangelog } from '../build/changelog/files.ts';
import { unloggedChanges } from '../build/changelog/guard.ts';
import { publishedRecord } from '../build/compile/published.ts';
import { loadDataset } from '../build/load/load.ts';
import { livePointer, publishSite } from '../build/publish/publish.ts';
import { changelogKey } from '../build/site-format.ts';
import type { Change } from '../build/types.ts';
import { buildSite, plainOf, validateDataset } from './helpers/build.ts';
import { bundled } from './helpers/bundles.ts';
import { baseGrain, tempDir, writeDataset } from './helpers/dataset.ts';
import { root } from './helpers/gateway.ts';
import { openApiAjv, strictDocument } from './helpers/openapi-check.ts';

const now = new Date('2026-11-24T08:00:00Z');
// The fixtures' tables are of crop year 2025/26, which ended on 2026-07-31: a printed number of one
// changed now corrects that year's table, and says so (docs/dataset-editing.md, Crop years).
const draft = (dir: string, summary = 'Ergot at No. 1 T is now 0.03%.') =>
  draftChangelog(dir, { summary, effectiveDate: '2026-11-24', now, correction: true });
const edit = (dir: string, id: string, from: string, to: string) => {
  const file = join(dir, 'grains', `${id}.yaml`);
  const text = readFileSync(file, 'utf8');
  assert.ok(text.includes(from), `${id}.yaml holds ${from}`);
  writeFileSync(file, text.replace(from, to));
};
const ERGOT = ['thresholds: [0.04, 0.04, 0.10]', 'thresholds: [0.03, 0.04, 0.10]'] as const;
const ergotChange: Change = {
  grain_id: 'TEST',
  factor_id: 'ergot',
  grade: 'No. 1 T',
  field: 'value',
  from: 0.04,
  to: 0.03,
};
// npm run build and npm run changelog, as they run: their bundles (helpers/bundles.ts)
const commands = { build: [] as string[], changelog: [] as string[] };
before(async () => {
  commands.build = await bundled('build');
  commands.changelog = await bundled('changelog');
});
const cli = (command: keyof typeof commands, args: string[]) =>
  spawnSync(process.execPath, [...commands[command], ...args], { encoding: 'utf8', cwd: root });
const tree = (dir: string) =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => [join(d.parentPath, d.name), readFileSync(join(d.parentPath, d.name), 'utf8')]);

describe('the build refuses an unlogged change', () => {
  it('on a clean checkout: names the class and the cell, and publishes nothing', async () => {
    const dir = writeDataset({ grains: { TEST: baseGrain() } });
    edit(dir, 'TEST', ...ERGOT);
    const r = await buildSite(dir);
    assert.ok(!r.ok);
    assert.deepEqual(r.unlogged, [{ grain_id: 'TEST', changes: [ergotChange] }]);
    assert.equal(r.errors.length, 1);
    assert.match(r.errors[0]!.message, /^ergot at "No\. 1 T": value 0\.04 → 0\.03, not named by a changelog entry$/);
    assert.equal(r.errors[0]!.file, 'grains/TEST.yaml');
    assert.equal(r.errors[0]!.field, 'factor_groups[0].factors[2].thresholds[0]');

    const out = tempDir('refused-out');
    const run = cli('build', ['--dataset', dir, '--out', out]);
    assert.equal(run.status, 1);
    assert.match(run.stderr, /grains\/TEST\.yaml:\d+:\d+: factor_groups\[0\]\.factors\[2\]\.thresholds\[0\]: ergot/);
    assert.match(run.stderr, /TEST: 1 change\(s\)/);
    assert.match(run.stderr, /npm run changelog -- --summary/);
    assert.deepEqual(readdirSync(out), [], 'nothing published');
  });

  it('against the live build: a covered/ edited by hand does not let a change through', async () => {
    const dir = writeDataset({ grains: { TEST: baseGrain() } });
    const out = tempDir('live-out');
    assert.equal(cli('build', ['--dataset', dir, '--out', out]).status, 0);
    const live = livePointer(out)!.build_id;
    edit(dir, 'TEST', ...ERGOT);
    // what a careless merge or a hand edit does: covered/ made to agree, with no entry
    const loaded = validateDataset(loadDataset(dir)).dataset!;
    const covered = join(dir, 'covered', 'TEST.json');
    const file = JSON.parse(readFileSync(covered, 'utf8'));
    writeFileSync(covered, JSON.stringify({ ...file, record: publishedRecord(loaded.grains[0]!) }));
    assert.ok((await buildSite(dir)).ok, 'covered/ alone is fooled');
    const run = cli('build', ['--dataset', dir, '--out', out]);
    assert.equal(run.status, 1, run.stdout);
    assert.match(run.stderr, /TEST: ergot at "No\. 1 T": value 0\.04 → 0\.03/);
    assert.match(run.stderr, new RegExp(`against the live build ${live}`));
    assert.equal(livePointer(out)!.build_id, live, 'the live build is still the one served');
  });

  it('against the live build: buildSite refuses by itself, given the site the build is for', async () => {
    const dir = writeDataset({ grains: { TEST: baseGrain() } });
    const out = tempDir('live-site');
    const first = await buildSite(dir, { siteDir: out });
    assert.ok(first.ok && first.live === null, 'nothing is live yet');
    publishSite(out, first.site);
    const live = livePointer(out)!.build_id;
    edit(dir, 'TEST', ...ERGOT);
    const covered = join(dir, 'covered', 'TEST.json');
    const record = publishedRecord(validateDataset(loadDataset(dir)).dataset!.grains[0]!);
    writeFileSync(covered, JSON.stringify({ ...JSON.parse(readFileSync(covered, 'utf8')), record }));
    assert.ok((await buildSite(dir)).ok, 'without the site, covered/ alone is fooled');
    const r = await buildSite(dir, { siteDir: out });
    assert.ok(!r.ok);
    assert.deepEqual(r.against, { build_id: live });
    assert.deepEqual(r.unlogged, [{ grain_id: 'TEST', changes: [ergotChange] }]);
    assert.deepEqual(r.errors, []);
    const again = await buildSite(dir, { siteDir: tempDir('no-live-site') });
    assert.ok(again.ok && again.live === null, 'a site with no live build refuses nothing');
  });

  it('refuses a correction not marked as one, and a mark on what is no correction', async () => {
    const dir = writeDataset({ grains: { TEST: baseGrain() } });
    edit(dir, 'TEST', ...ERGOT);
    assert.ok(draft(dir).ok);
    const file = join(dir, 'changelog.yaml');
    const marked = readFileSync(file, 'utf8');
    assert.ok(marked.includes('    correction: true\n'));
    writeFileSync(file, marked.replace('    correction: true\n', ''));
    const unmarked = await buildSite(dir);
    assert.ok(!unmarked.ok);
    assert.match(
      unmarked.errors.map((e) => `${e.field}: ${e.message}`).join('\n'),
      /effective_date: changes what the 2025\/26 table prints after that crop year ended \(2026-07-31\) and is not/,
    );
    writeFileSync(file, marked.replace(/( {4}summary: First publication\.\n)/, '$1    correction: true\n'));
    const wrong = await buildSite(dir);
    assert.ok(!wrong.ok);
    const messages = wrong.errors.map((e) => e.message).join('\n');
    assert.match(messages, /"first" was edited/);
    assert.match(messages, /is marked as a correction, but it changes no printed number or label/);
    writeFileSync(file, marked);
    assert.ok((await buildSite(dir)).ok);
  });

  it('an entry already published cannot cover a later change', async () => {
    const dir = writeDataset({ grains: { TEST: baseGrain() } });
    edit(dir, 'TEST', ...ERGOT);
    assert.ok(draft(dir).ok);
    assert.ok((await buildSite(dir)).ok, 'the drafted entry covers the change');
    edit(dir, 'TEST', 'thresholds: [0.03, 0.06, 0.10]', 'thresholds: [0.03, 0.05, 0.10]');
    const r = await buildSite(dir);
    assert.ok(!r.ok);
    assert.deepEqual(
      r.unlogged.map((u) => u.changes.map((c) => [c.factor_id, c.grade, c.from, c.to])),
      [[['stones', 'No. 2 T', 0.06, 0.05]]],
    );
  });

  it('refuses an edited, a deleted or a hand-written entry, naming it', async () => {
    const dir = writeDataset({ grains: { TEST: baseGrain() } });
    const changelog = join(dir, 'changelog.yaml');
    const first = readFileSync(changelog, 'utf8');
    const cases: [string, string, RegExp][] = [
      ['edited', first.replace('First publication.', 'First publication, corrected.'), /"first" was edited/],
      ['deleted', 'entries: []\n', /"first" was deleted/],
      [
        'hand-written',
        `${first}  - id: by-hand\n    crop_year: 2025/26\n    effective_date: 2026-11-02\n` +
          '    grain_ids_affected: [TEST]\n' +
          '    summary: Written by hand.\n    created_at: 2026-11-02T10:00:00Z\n',
        /the entry "by-hand" is not recorded/,
      ],
    ];
    for (const [what, text, message] of cases) {
      writeFileSync(changelog, text);
      const r = await buildSite(dir);
      assert.ok(!r.ok, what);
      assert.ok(
        r.errors.some((e) => e.file === 'changelog.yaml' && message.test(e.message)),
        `${what}: ${JSON.stringify(r.errors)}`,
      );
    }
  });

  it('catches a change the code makes to every record (it compares what clients receive)', () => {
    const loaded = loadDataset(join(root, 'dataset'));
    const dataset = validateDataset(loaded).dataset!;
    assert.deepEqual(unloggedChanges(dataset, loaded.coverage!), [], 'the real dataset is covered');
    // as if compile gained a rule that writes one more note into every record
    const changed = { ...dataset, grains: dataset.grains.map((g) => ({ ...g, notes: [...g.notes, 'New.'] })) };
    const unlogged = unloggedChanges(changed, loaded.coverage!);
    assert.equal(unlogged.length, 23);
    for (const u of unlogged)
      assert.deepEqual(
        u.changes.map((c) => c.field),
        ['notes'],
        u.grain_id,
      );
  });
});

describe('npm run changelog', () => {
  it('drafts an entry with exactly the changed cells, then the build publishes it', async () => {
    const dir = writeDataset({ grains: { AAA: baseGrain('AAA'), BBB: baseGrain('BBB') } });
    edit(dir, 'BBB', 'thresholds: [0.5, 1.0,', 'thresholds: [0.5, 0.9,');
    edit(dir, 'BBB', 'factor_label: Stones', 'factor_label: Stones and gravel');
    const args = ['--dataset', dir, '--summary', 'BBB: two cells.', '--effective-date', '2026-11-20'];
    const edited = tree(dir);
    const refused = cli('changelog', args);
    assert.equal(refused.status, 1, refused.stdout);
    assert.deepEqual(tree(dir), edited, 'a refusal writes nothing');
    assert.match(refused.stderr, /crop year 2025\/26 ended on 2026-07-31/);
    assert.match(refused.stderr, /run again with --correction/);
    assert.match(refused.stderr, /npm run import/);
    const run = cli('changelog', [...args, '--correction']);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /appended 2026-11-20-bbb-two-cells \(correction to the 2025\/26 table\): BBB/);
    const r = await buildSite(dir);
    assert.ok(r.ok, !r.ok ? JSON.stringify(r.errors) : '');
    const entry = r.dataset.changelog.at(-1)!;
    assert.equal(entry.created_at.length, 20);
    assert.deepEqual(
      { ...entry, created_at: 'now' },
      {
        id: '2026-11-20-bbb-two-cells',
        crop_year: '2025/26',
        effective_date: '2026-11-20',
        correction: true,
        grain_ids_affected: ['BBB'],
        summary: 'BBB: two cells.',
        created_at: 'now',
        changes: [
          {
            grain_id: 'BBB',
            factor_id: 'stones',
            grade: null,
            field: 'factor_label',
            from: 'Stones',
            to: 'Stones and gravel',
          },
          {
            grain_id: 'BBB',
            factor_id: 'total_foreign_material',
            grade: 'No. 2 T',
            field: 'value',
            from: 1,
            to: 0.9,
          },
          {
            grain_id: 'BBB',
            factor_id: 'total_foreign_material',
            grade: 'No. 2 T',
            field: 'decimals',
            from: 1,
            to: 1,
          },
        ].filter((c) => c.from !== c.to),
      },
    );
    // the published entry carries its changes, and they validate against the response schema
    const published = JSON.parse(plainOf(r.site, changelogKey('BBB', 1)).toString());
    assert.deepEqual(published.entries[0].changes, entry.changes);
    const doc = JSON.parse(plainOf(r.site, '/api/openapi.json').toString());
    const validate = openApiAjv(strictDocument(doc)).getSchema('openapi.json#/components/schemas/Changelog')!;
    assert.ok(validate(published), JSON.stringify(validate.errors));
  });

  it('a class added, or a field no table prints, after its crop year ended is no correction', async () => {
    const dir = writeDataset({ grains: { AAA: baseGrain('AAA') } });
    writeFileSync(join(dir, 'grains', 'BBB.yaml'), baseGrain('BBB'));
    writeFileSync(join(dir, 'index.yaml'), 'grains: [AAA, BBB]\n');
    const asked = draftChangelog(dir, { summary: 'BBB added.', effectiveDate: '2026-11-24', now, correction: true });
    assert.ok(
      !asked.ok &&
        /^--correction is for an entry that changes what a finished crop year's table prints/.test(asked.reason),
    );
    const added = draftChangelog(dir, { summary: 'BBB added.', effectiveDate: '2026-11-24', now });
    assert.ok(added.ok, added.ok ? '' : added.reason);
    assert.equal(added.entries[0]!.correction, undefined);
    edit(dir, 'AAA', 'effective_crop_year: 2025/26', 'effective_crop_year: 2025/26\nnotes: [A note.]');
    const note = draftChangelog(dir, { summary: 'A note.', effectiveDate: '2026-11-24', now });
    assert.ok(note.ok, note.ok ? '' : note.reason);
    assert.ok((await buildSite(dir)).ok);
  });

  it('writes one entry per crop year of the records it names', async () => {
    const other = baseGrain('NEW')
      .replace('effective_crop_year: 2025/26', 'effective_crop_year: 2026/27')
      .replace('last_scraped: 2026-04-12', 'last_scraped: 2026-08-01');
    const dir = writeDataset({ grains: { OLD: baseGrain('OLD'), NEW: other } });
    edit(dir, 'OLD', ...ERGOT);
    edit(dir, 'NEW', ...ERGOT);
    const r = draft(dir, 'Ergot at No. 1 is now 0.03%.');
    assert.ok(r.ok);
    assert.deepEqual(
      r.entries.map((e) => [e.id, e.crop_year, e.grain_ids_affected, e.correction ?? false]),
      [
        ['2026-11-24-ergot-at-no-1-is-now-2026-27', '2026/27', ['NEW'], false],
        ['2026-11-24-ergot-at-no-1-is-now-2025-26', '2025/26', ['OLD'], true],
      ],
    );
    assert.ok((await buildSite(dir)).ok);
  });

  it('says why and changes no file: nothing changed, a bad date, no summary, --help', () => {
    const dir = writeDataset({ grains: { TEST: baseGrain() } });
    const before = tree(dir);
    const nothing = cli('changelog', ['--dataset', dir, '--summary', 'Nothing.']);
    assert.equal(nothing.status, 1);
    assert.match(
      nothing.stderr,
      /^Nothing changed: every published record is as the changelog covers it\. Nothing was written\./,
    );
    edit(dir, 'TEST', ...ERGOT);
    const changed = tree(dir);
    for (const [args, message] of [
      [['--summary', 'Ergot.', '--effective-date', '2026-02-30'], /--effective-date must be a date that exists/],
      [['--summary', 'Ergot.', '--effective-date', '24/11/2026'], /--effective-date must be a date that exists/],
      [[], /--summary is required/],
      [['--summary', '   '], /--summary must be a sentence/],
      [['--sumary', 'Ergot.'], /Unknown option '--sumary'/],
    ] as const) {
      const run = cli('changelog', ['--dataset', dir, ...args]);
      assert.equal(run.status, 2, args.join(' '));
      assert.match(run.stderr, message);
      assert.match(run.stderr, /usage: npm run changelog --/);
    }
    assert.deepEqual(tree(dir), changed, 'no file changed');
    assert.notDeepEqual(changed, before);
    const help = cli('changelog', ['--help']);
    assert.equal(help.status, 0);
    assert.match(help.stdout, /^usage: npm run changelog -- --summary/);
  });

  it('--baseline starts covered/ once, on a dataset without it', async () => {
    const dir = writeDataset({ grains: { TEST: baseGrain() }, covered: false });
    const r = await buildSite(dir);
    assert.ok(!r.ok && /covered\/ is missing/.test(r.errors[0]!.message));
    assert.equal(cli('changelog', ['--dataset', dir, '--baseline']).status, 0);
    assert.ok((await buildSite(dir)).ok);
    const again = cli('changelog', ['--dataset', dir, '--baseline']);
    assert.equal(again.status, 1);
    assert.match(again.stderr, /exists already/);
  });

  it("the real dataset: No. 1 CWRS's ergot changed is refused, drafted as a correction, published", async () => {
    const copy = tempDir('real-copy');
    cpSync(join(root, 'dataset'), copy, { recursive: true });
    edit(copy, 'CWRS', 'thresholds: [0.04, 0.04, 0.04, 0.10]', 'thresholds: [0.03, 0.04, 0.04, 0.10]');
    const refused = await buildSite(copy);
    assert.ok(!refused.ok);
    assert.deepEqual(refused.unlogged, [
      {
        grain_id: 'CWRS',
        changes: [{ grain_id: 'CWRS', factor_id: 'ergot', grade: 'No. 1 CWRS', field: 'value', from: 0.04, to: 0.03 }],
      },
    ]);
    // the docs' example (docs/dataset-editing.md): CWRS's table is of 2025/26, which had ended
    const today = new Date('2026-11-29T08:00:00Z');
    const opts = { summary: "No. 1 CWRS's ergot limit is now 0.03%.", effectiveDate: '2026-11-29', now: today };
    const before = tree(copy);
    const guessed = draftChangelog(copy, opts);
    assert.ok(!guessed.ok);
    assert.match(
      guessed.reason,
      /^CWRS: crop year 2025\/26 ended on 2026-07-31, and this changes what its table prints/,
    );
    assert.match(guessed.reason, /run again with --correction/);
    assert.match(guessed.reason, /import its page with npm run import/);
    const later = draftChangelog(copy, { ...opts, effectiveDate: '2026-12-01' });
    assert.ok(!later.ok && /2026-12-01 is after today \(2026-11-29\)/.test(later.reason));
    assert.deepEqual(tree(copy), before, 'nothing written');

    const r = draftChangelog(copy, { ...opts, correction: true });
    assert.ok(r.ok, r.ok ? '' : r.reason);
    assert.deepEqual(
      r.entries.map((e) => [e.crop_year, e.grain_ids_affected, e.correction]),
      [['2025/26', ['CWRS'], true]],
    );
    assert.match(readFileSync(join(copy, 'changelog.yaml'), 'utf8'), /\n {4}correction: true\n/);
    const built = await buildSite(copy, { now: today });
    assert.ok(built.ok, built.ok ? '' : JSON.stringify(built.errors));
    assert.equal(built.site.manifest.dataset_version, r.entries[0]!.id);
    const body = (route: string) => plainOf(built.site, route).toString();
    const entries = JSON.parse(body(changelogKey(null, 20))).entries as { id: string; correction: boolean }[];
    assert.deepEqual(
      entries.map((e) => e.correction),
      entries.map((e) => e.id === r.entries[0]!.id),
      'only the correction is marked',
    );
    const mark = /Correction to the 2025\/26 table<\/strong>, published <time datetime="2026-11-29">2026-11-29<\/time>/;
    assert.match(body('/tables/CWRS'), mark);
    assert.match(body('/tables/'), /2026-11-29<\/time> <span class="note">\(Correction to the 2025\/26 table\)/);
    assert.match(body('/tables/changes.atom'), /Correction to the 2025\/26 table, published 2026-11-29\./);
    // the build runs on a day: the entry is refused the day before it takes effect
    const early = await buildSite(copy, { now: new Date('2026-11-28T23:59:59Z') });
    assert.ok(!early.ok);
    assert.match(early.errors.map((e) => e.message).join('\n'), /2026-11-29 is after today \(2026-11-28\)/);
  });
});
