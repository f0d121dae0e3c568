// Crop years (docs/contract.md, Crop years; docs/dataset-editing.md, "A new crop year"): the editor's
// walk on the day the authority publishes a new crop year's page, on a copy of the dataset: check,
// import, the refused build, the drafted entry, the published build, and a client fetching the old
// and the new year from a real gateway. Then the checks that keep the years true.
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { draftChangelog } from '../build/changelog/files.ts';
import { readLiveBuild, unloggedAgainstLive } from '../build/changelog/live.ts';
import { gradeCommand } from '../build/client/cli/grade-command.ts';
import { syncMirror } from '../build/client/sync.ts';
import { authorityRecord, compareRecords } from '../build/import/check-authority.ts';
import { importPage } from '../build/import/import-page.ts';
import { readPage } from '../build/import/read-page.ts';
import { loadDataset } from '../build/load/load.ts';
import { publishSite } from '../build/publish/publish.ts';
import { cropYearOf } from '../build/validate/crop-years.ts';
import { buildSite, testChecks, validateGrainFile } from './helpers/build.ts';
import { tempDir } from './helpers/dataset.ts';
import { root, startTestGateway, type TestGateway } from './helpers/gateway.ts';
import { injectGet, injectRegister } from './helpers/inject.ts';
import { suite } from './helpers/suite.ts';

it('a crop year runs from 1 August to 31 July', () => {
  for (const [at, year] of [
    ['2026-07-31T23:59:59Z', '2025/26'],
    ['2026-08-01T00:00:00Z', '2026/27'],
    ['2026-11-25T00:00:00Z', '2026/27'],
    ['2099-12-31T00:00:00Z', '2099/00'],
    ['2000-01-01T00:00:00Z', '1999/00'],
  ]) {
    assert.equal(cropYearOf(at!), year, at);
  }
});

const shared = join(root, '..', 'shared', 'authority-pages');
const CWRS = 'cwrs-wheat.html';
/** The authority's 2026/27 page: two cells changed (No. 1 CWRS's ergot, CW Feed's excreta). */
const NEW_CELLS = [
  ['<th scope="row">Ergot %</th>\r\n\t\t\t  <td>0.04</td>', '<th scope="row">Ergot %</th>\r\n\t\t\t  <td>0.03</td>'],
  [
    '<td>0.03</td>\r\n\t\t\t  <td>Wheat, Sample CW Account Excreta',
    '<td>0.02</td>\r\n\t\t\t  <td>Wheat, Sample CW Account Excreta',
  ],
] as const;

suite('a new crop year, walked by an editor', !existsSync(shared) && 'no ../shared/authority-pages here', () => {
  let dataset: string;
  let pages: string;
  let t: TestGateway;
  let key: string;
  before(async () => {
    dataset = join(tempDir('crop-year'), 'dataset');
    cpSync(join(root, 'dataset'), dataset, { recursive: true });
    pages = tempDir('new-pages');
    let html = readFileSync(join(shared, CWRS), 'utf8');
    for (const [from, to] of NEW_CELLS) {
      assert.equal(html.split(from).length, 2, `the saved page holds ${from} once`);
      html = html.replace(from, to);
    }
    writeFileSync(join(pages, CWRS), html);
    const row = readFileSync(join(shared, 'pages.tsv'), 'utf8')
      .split('\n')
      .find((l) => l.startsWith(`${CWRS}\t`))!;
    const [file, ids, url] = row.split('\t');
    const head = 'file\tgrain_ids\tsource_url\tpage_modified\tretrieved';
    writeFileSync(join(pages, 'pages.tsv'), `${head}\n${[file, ids, url, '2026-08-01', '2026-11-25'].join('\t')}\n`);
  });
  after(() => t?.close());

  it('check-authority finds both cells', () => {
    const file = loadDataset(dataset).grains.find((f) => f.file === 'grains/CWRS.yaml')!;
    const theirs = authorityRecord(readFileSync(join(pages, CWRS), 'utf8'), file, testChecks());
    const d = compareRecords(validateGrainFile(file).record!, theirs.record!);
    assert.deepEqual(
      d.map((x) => [x.where, x.dataset, x.authority]),
      [
        ['CWRS › Foreign material › Ergot › No. 1 CWRS', '0.04', '0.03'],
        ['CWRS › Foreign material › Excreta › CW Feed', '0.03', '0.02'],
      ],
    );
  });

  it('import changes the two cells, last_scraped and the crop year, each on its own line', async () => {
    const r = importPage(await readPage(join(pages, CWRS)), 'CWRS', dataset);
    assert.ok(r.ok);
    writeFileSync(r.file, r.text);
    const lines = (s: string) => s.split('\n');
    const [was, now] = [lines(r.before!), lines(r.text)];
    assert.equal(now.length, was.length);
    const changed = now.flatMap((l, i) => (l === was[i] ? [] : [`${was[i]!.trim()} → ${l.trim()}`]));
    assert.deepEqual(changed, [
      'effective_crop_year: 2025/26 → effective_crop_year: 2026/27',
      'last_scraped: 2026-04-12T00:00:00Z → last_scraped: 2026-11-25T00:00:00Z',
      'thresholds: [0.04, 0.04, 0.04, 0.10] → thresholds: [0.03, 0.04, 0.04, 0.10]',
      'thresholds: [0.01, 0.01, 0.01, 0.03] → thresholds: [0.01, 0.01, 0.01, 0.02]',
    ]);
    const again = importPage(await readPage(join(pages, CWRS)), 'CWRS', dataset);
    assert.ok(again.ok);
    assert.equal(again.text, again.before, 'the same page again leaves the file byte for byte');
  });

  it('the build refuses the unlogged change, naming each cell', async () => {
    const r = await buildSite(dataset);
    assert.ok(!r.ok);
    assert.deepEqual(
      r.errors.map((e) => `${e.file}:${e.line}: ${e.message}`),
      [
        'grains/CWRS.yaml:9: effective_crop_year "2025/26" → "2026/27", not named by a changelog entry',
        // the year the entry keeps as a past one is among the record's years already
        'grains/CWRS.yaml:5: crop_years ["2025/26"]… → ["2025/26","2026/27"]…, not named by a changelog entry',
        'grains/CWRS.yaml:12: last_scraped "2026-04-12T00:00:00Z" → "2026-11-25T00:00:00Z", ' +
          'not named by a changelog entry',
        'grains/CWRS.yaml:66: ergot at "No. 1 CWRS": value 0.04 → 0.03, not named by a changelog entry',
        'grains/CWRS.yaml:70: excreta at "CW Feed": value 0.03 → 0.02, not named by a changelog entry',
      ],
    );
  });

  it('the drafted entry is of crop year 2026/27 and names exactly the changed cells', () => {
    const summary = "The 2026/27 table: No. 1 CWRS's ergot limit is 0.03%, CW Feed's excreta limit 0.02%.";
    const r = draftChangelog(dataset, { summary, effectiveDate: '2026-08-01', now: new Date('2026-11-25T10:00:00Z') });
    assert.ok(r.ok);
    assert.equal(r.entries.length, 1);
    const [entry] = r.entries;
    assert.equal(entry!.crop_year, '2026/27');
    assert.deepEqual(entry!.grain_ids_affected, ['CWRS']);
    const cells = entry!.changes!.filter((c) => c.factor_id !== null);
    assert.deepEqual(
      cells.map((c) => [c.factor_id, c.grade, c.field, c.from, c.to]),
      [
        ['ergot', 'No. 1 CWRS', 'value', 0.04, 0.03],
        ['excreta', 'CW Feed', 'value', 0.03, 0.02],
      ],
    );
    assert.deepEqual(
      entry!.changes!.filter((c) => c.factor_id === null).map((c) => c.field),
      ['effective_crop_year', 'crop_years', 'last_scraped'],
    );
    // the 2025/26 table is kept in the dataset itself: no version history needed
    const past = JSON.parse(readFileSync(join(dataset, 'covered/past/CWRS.2025-26.json'), 'utf8'));
    assert.equal(past.record.effective_crop_year, '2025/26');
  });

  it('publishes, and a client fetches the old and the new year (plain or %2F), each its own body', async () => {
    const r = await buildSite(dataset);
    assert.ok(r.ok, r.ok ? '' : JSON.stringify(r.errors));
    // a clean checkout (a copy, no history) builds the same bytes
    const clean = join(tempDir('clean'), 'dataset');
    cpSync(dataset, clean, { recursive: true });
    const again = await buildSite(clean);
    assert.ok(again.ok);
    assert.equal(again.site.manifest.build_id, r.site.manifest.build_id);

    const site = tempDir('crop-year-site');
    publishSite(site, r.site);
    t = await startTestGateway({ SITE_DIR: site });
    key = await injectRegister(t.gateway.app, 'crop-years@example.com');
    const ergot = (body: {
      factor_groups: { factors: { factor_id: string; thresholds: Record<string, { value: unknown }> }[] }[];
    }) => body.factor_groups.flatMap((g) => g.factors).find((f) => f.factor_id === 'ergot')!.thresholds;
    const get = (url: string, headers?: Record<string, string>) => injectGet(t.gateway.app, url, key, headers);

    const old = await get('/api/grains/CWRS?crop_year=2025/26');
    assert.equal(old.status, 200);
    assert.equal(old.json().effective_crop_year, '2025/26');
    assert.equal(ergot(old.json())['No. 1 CWRS']!.value, 0.04);
    const encoded = await get('/api/grains/cwrs?crop_year=2025%2F26');
    assert.deepEqual(encoded.body, old.body);
    assert.equal(encoded.headers.etag, old.headers.etag);

    const current = await get('/api/grains/CWRS');
    const year = await get('/api/grains/CWRS?crop_year=2026/27');
    assert.equal(year.status, 200);
    assert.equal(ergot(year.json())['No. 1 CWRS']!.value, 0.03);
    assert.deepEqual(year.body, current.body);
    assert.notEqual(old.headers.etag, year.headers.etag);

    // each record names its class's years as they stood: the past one its own, the current one both
    assert.deepEqual(old.json().crop_years, ['2025/26']);
    assert.deepEqual(current.json().crop_years, ['2025/26', '2026/27']);
    const list = (await get('/api/grains')).json();
    assert.deepEqual(list.grains.find((g: { grain_id: string }) => g.grain_id === 'CWRS').crop_years, [
      '2025/26',
      '2026/27',
    ]);
    // the snapshot of a year holds that year's records, the record endpoint's very bodies
    const snap = await get('/api/snapshot?crop_year=2025%2F26');
    assert.equal(snap.status, 200);
    assert.equal(snap.json().crop_year, '2025/26');
    const cwrs = snap.json().grains.find((g: { grain_id: string }) => g.grain_id === 'CWRS');
    assert.equal(JSON.stringify(cwrs), old.text());
    assert.equal(snap.json().count, snap.json().grains.length);
    assert.ok(!snap.json().grains.some((g: { grain_id: string }) => g.grain_id === 'CWHWS'), 'not a 2025/26 class');
    const now = (await get('/api/snapshot')).json();
    assert.equal(now.crop_year, null);
    // its changelog: that year's entries and those before it; the current snapshot's, every entry
    type Entry = { id: string; crop_year: string };
    const all = (await get('/api/changelog?limit=100')).json().entries as Entry[];
    assert.ok(all.some((e) => e.crop_year === '2026/27') && all.some((e) => e.crop_year === '2025/26'));
    assert.deepEqual(
      (snap.json().changelog as Entry[]).map((e) => e.id),
      all.filter((e) => e.crop_year <= '2025/26').map((e) => e.id),
    );
    assert.deepEqual(
      (now.changelog as Entry[]).map((e) => e.id),
      all.map((e) => e.id),
    );
    assert.equal(JSON.stringify(now.grains.find((g: { grain_id: string }) => g.grain_id === 'CWRS')), current.text());
    const missing = await get('/api/snapshot?crop_year=2024/25');
    assert.equal(missing.status, 404);
    assert.match(missing.json().error, /the service has 2025\/26, 2026\/27/);
    const cwhws = await get('/api/grains/CWHWS?crop_year=2025/26');
    assert.match(cwhws.json().error, /^CWHWS was not published for that crop year; it was for 2026\/27\./);

    const br = await get('/api/grains/CWRS?crop_year=2025/26', { 'accept-encoding': 'br' });
    assert.equal(br.headers['content-encoding'], 'br');
    const fresh = await get('/api/grains/CWRS?crop_year=2025/26', { 'if-none-match': old.headers.etag! });
    assert.equal(fresh.status, 304);
    assert.equal(fresh.headers['x-ratelimit-remaining'], br.headers['x-ratelimit-remaining'], 'a 304 is free');

    // the reference describes it: the document's parameter, and the /docs page rendered from it
    const doc = (await injectGet(t.gateway.app, '/api/openapi.json')).json();
    const param = doc.paths['/api/grains/{grain_id}'].get.parameters.find(
      (p: { name: string }) => p.name === 'crop_year',
    );
    assert.equal(param.in, 'query');
    const page = (await injectGet(t.gateway.app, '/docs')).text();
    assert.ok(page.includes('crop_year') && page.includes('unknown_crop_year'), '/docs names the parameter and code');
    const gradePage = (await injectGet(t.gateway.app, '/grade')).text();
    assert.ok(gradePage.includes('<option value="CWRS" data-years="2026/27 2025/26">'), '/grade offers both years');
    assert.ok(gradePage.includes('<option value="CWHWS" data-years="2026/27">'));

    for (const [url, status, code] of [
      ['/api/grains/CWRS?crop_year=2024/25', 404, 'unknown_crop_year'],
      ['/api/grains/CWHWS?crop_year=2025/26', 404, 'unknown_crop_year'],
      ['/api/grains/CWRS?crop_year=2025-26', 400, 'bad_crop_year'],
      ['/api/grains/CWRS?crop_year=2025/27', 400, 'bad_crop_year'],
      ['/api/grains/CWRS?crop_year=', 400, 'bad_crop_year'],
      ['/api/grains/CWRS?crop_year=2025/26&crop_year=2025/26', 400, 'repeated_param'],
      ['/api/grains/NOPE?crop_year=2025/26', 404, 'unknown_grain'],
    ] as const) {
      const res = await get(url);
      assert.equal(res.status, status, url);
      assert.equal(res.json().code, code, url);
    }
  });

  it('a client mirrors the old year in a folder of its own, and grades against either year', async () => {
    const copy = join(tempDir('year-copy'), '2025-26');
    const s = await syncMirror({ baseUrl: t.url, key, out: copy, cropYear: '2025/26' });
    assert.equal(s.records.new, 9, 'the nine classes published for 2025/26; the wheat classes added in 2026/27 not');
    assert.equal(JSON.parse(readFileSync(join(copy, 'grains/CWRS.json'), 'utf8')).effective_crop_year, '2025/26');
    assert.equal(existsSync(join(copy, 'grains/CWHWS.json')), false);
    // unchanged, a year's copy is a free 304 as the current one is: the held ETag is sent
    const again = await syncMirror({ baseUrl: t.url, key, out: copy, cropYear: '2025/26' });
    assert.deepEqual([again.changed, again.counted, again.records.unchanged], [false, 0, 9]);
    assert.equal(again.remaining, s.remaining, 'the service counted nothing');
    await assert.rejects(syncMirror({ baseUrl: t.url, key, out: copy }), /is a mirror of the crop year 2025\/26/);

    // 0.04% ergot: within No. 1 CWRS's 0.04% of 2025/26, over its 0.03% of 2026/27
    const sample = JSON.stringify({
      values: {
        ergot: 0.04,
        total_foreign_material: 0.05,
        minimum_hard_vitreous_kernels: 80,
        minimum_protein: 14,
        total_wheats_of_other_classes_or_varieties_and_contrasting_classes: 0,
        total_smudge_and_blackpoint: 0,
        total_sprouted: 0,
        minimum_test_weight: 80,
        total_heated_binburnt_severely_mildewed_rotted_mouldy: 0,
        amber_durum_and_cwsp: 0,
      },
      judgments: { variety: 'No. 1 CWRS', degree_of_soundness: 'No. 1 CWRS' },
    });
    const gradeWith = (args: string[]) => {
      const out: string[] = [];
      const err: string[] = [];
      const code = gradeCommand([...args, 'CWRS', '-'], {
        io: { readSample: () => sample, out: (l) => out.push(l), err: (l) => err.push(l) },
      });
      assert.equal(code, 0, err.join('\n'));
      return JSON.parse(out[0]!).grade as string;
    };
    const site = t.siteDir;
    assert.equal(
      gradeWith(['--copy', copy, '--crop-year', '2025/26']),
      gradeWith(['--site', site, '--crop-year', '2025/26']),
    );
    assert.equal(gradeWith(['--site', site, '--crop-year', '2025/26']), 'No. 1 CWRS');
    assert.equal(gradeWith(['--site', site]), 'No. 2 CWRS');
    assert.equal(gradeWith(['--site', site, '--crop-year', '2026/27']), gradeWith(['--site', site]));
  });

  it('refuses a record whose crop year is not its last_scraped, naming file, line and both values', async () => {
    const file = join(dataset, 'grains/CWRS.yaml');
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.replace('effective_crop_year: 2026/27', 'effective_crop_year: 2025/26'));
    try {
      const r = await buildSite(dataset);
      assert.ok(!r.ok);
      const [e] = r.errors;
      assert.deepEqual([e!.file, e!.line, e!.field], ['grains/CWRS.yaml', 9, 'effective_crop_year']);
      assert.match(e!.message, /^is 2025\/26 but last_scraped 2026-11-25T00:00:00Z falls in crop year 2026\/27/);
    } finally {
      writeFileSync(file, text);
    }
  });

  it("refuses a past year's record edited by hand, against the live build", async () => {
    const file = join(dataset, 'covered/past/CWRS.2025-26.json');
    const text = readFileSync(file, 'utf8');
    assert.equal(text.split('"value": 0.04,').length > 1, true);
    writeFileSync(file, text.replace('"value": 0.04,', '"value": 0.05,'));
    try {
      const r = await buildSite(dataset);
      assert.ok(r.ok, 'a clean checkout cannot tell');
      const silent = unloggedAgainstLive(r.dataset, readLiveBuild(t.siteDir)!);
      assert.equal(silent.length, 1);
      assert.equal(silent[0]!.grain_id, 'CWRS of 2025/26 (dataset/covered/past/)');
      assert.deepEqual(silent[0]!.changes[0]!.to, 0.05);
    } finally {
      writeFileSync(file, text);
    }
    const r = await buildSite(dataset);
    assert.ok(r.ok);
    assert.deepEqual(unloggedAgainstLive(r.dataset, readLiveBuild(t.siteDir)!), []);
  });

  it('refuses a new entry whose crop year is not its records', async () => {
    const file = join(dataset, 'changelog.yaml');
    const text = readFileSync(file, 'utf8');
    const at = text.lastIndexOf('crop_year: 2026/27');
    writeFileSync(file, `${text.slice(0, at)}crop_year: 2025/26${text.slice(at + 'crop_year: 2026/27'.length)}`);
    try {
      const r = await buildSite(dataset);
      assert.ok(!r.ok);
      assert.ok(
        r.errors.some((e) => /^crop_year is 2025\/26 but CWRS's record it covers is of 2026\/27/.test(e.message)),
        JSON.stringify(r.errors),
      );
    } finally {
      writeFileSync(file, text);
    }
  });

  it('an unchanged page re-checked in a new crop year moves the year, and the entry says the table holds', async () => {
    const cwad = join(pages, 'cwad');
    mkdirSync(cwad);
    cpSync(join(shared, 'cwad-wheat.html'), join(cwad, 'cwad-wheat.html'));
    const row = readFileSync(join(shared, 'pages.tsv'), 'utf8')
      .split('\n')
      .find((l) => l.startsWith('cwad-'))!;
    const head = 'file\tgrain_ids\tsource_url\tpage_modified\tretrieved';
    writeFileSync(join(cwad, 'pages.tsv'), `${head}\n${row.replace(/\t2026-04-12$/, '\t2026-11-25')}\n`);
    const r = importPage(await readPage(join(cwad, 'cwad-wheat.html')), 'CWAD', dataset);
    assert.ok(r.ok);
    writeFileSync(r.file, r.text);
    assert.equal((await buildSite(dataset)).ok, false, 'the guard asks for an entry');
    const d = draftChangelog(dataset, { effectiveDate: '2026-11-25', now: new Date('2026-11-25T11:00:00Z') });
    assert.ok(d.ok);
    assert.equal(d.entries[0]!.crop_year, '2026/27');
    assert.equal(
      d.entries[0]!.summary,
      "The CWAD table was re-checked against the authority's page and holds unchanged for the 2026/27 crop year.",
    );
    assert.ok((await buildSite(dataset)).ok);
  });
});
