// The tables as pages (docs/contract.md, The front door): every threshold of every class read back
// from its page at its factor's row and grade's column; the pages served by a real gateway with no
// key, as the build wrote them (ETags, br, 304: a lookup, nothing rendered per request); and a
// dataset with two crop years whose changed cell is marked with its old value.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'parse5';
import { draftChangelog } from '../build/changelog/files.ts';
import type { EmittedSite } from '../build/emit/emit.ts';
import { tableBodies } from '../build/pages/table-bodies.ts';
import { type Build, bodyPath, grainKey, readBuild, tableKey } from '../build/site-format.ts';
import type { GrainRecord, Threshold } from '../build/types.ts';
import type { Dataset } from '../build/validate/validate.ts';
import { buildSite, plainOf } from './helpers/build.ts';
import { NEW_YEAR_SUMMARY, newYearDataset } from './helpers/dataset.ts';
import { realSiteDir, root } from './helpers/gateway.ts';
import { inject, injectGet, startTestApp, type TestApp } from './helpers/inject.ts';
import { attr, changedCell, type Element, findAll, readTable, text } from './helpers/table-page.ts';

/** What a cell shows: the authority's words where it wrote some, else the number with its decimals. */
function expectedText(t: Threshold): string {
  if (t.value_type === 'numeric') {
    const n = t.value.toFixed(t.decimals ?? 0);
    return t.threshold_note ?? (t.value_alt === null ? n : `${n} (${t.value_alt})`);
  }
  if (typeof t.value === 'string') return t.threshold_note ? `${t.value} ${t.threshold_note}` : t.value;
  return t.threshold_note ?? (t.value_type === 'no_limit' ? 'No limit' : 'Not applicable');
}

describe('the tables as pages, served', () => {
  let app: TestApp;
  let build: Build;
  const read = (path: string) => readFileSync(join(realSiteDir(), path), 'utf8');
  const stored = (route: string, suffix = '') =>
    readFileSync(join(realSiteDir(), `${bodyPath(build, route)!}${suffix}`));
  before(async () => {
    app = await startTestApp();
    build = readBuild(read);
  });
  after(() => app?.close());

  it('every threshold of every class is on its page, at its factor’s row and its grade’s column', async () => {
    let checked = 0;
    assert.equal(build.manifest.grain_ids.length, 23);
    for (const id of build.manifest.grain_ids) {
      const record = JSON.parse(stored(grainKey(id)).toString()) as GrainRecord;
      const page = await injectGet(app.app, tableKey(id));
      assert.equal(page.status, 200, id);
      const table = readTable(page.text());
      assert.deepEqual(table.columns, ['Grading factor', ...record.grades, record.fallthrough_label], id);
      assert.deepEqual(table.changed, [], `${id}: nothing marked (no entry of the dataset lists changes)`);
      const [h1] = findAll(table.doc, (e) => e.tagName === 'h1');
      assert.equal(text(h1!), record.grain_name);
      for (const group of record.factor_groups) {
        for (const f of group.factors) {
          const unit = f.unit_alt ? `${f.unit} (${f.unit_alt})` : f.unit;
          const key = `${group.group_label} › ${f.factor_label}${unit ? ` ${unit}` : ''}`;
          const cells = table.rows.get(key);
          assert.ok(cells, `${id}: a row ${key}`);
          for (const [grade, t] of Object.entries(f.thresholds)) {
            const td: Element = cells[record.grades.indexOf(grade)]!;
            assert.equal(text(td), expectedText(t), `${id} › ${key} › ${grade}`);
            if (t.value_type === 'numeric') {
              const [data] = findAll(td, (e) => e.tagName === 'data');
              assert.equal(Number(attr(data!, 'value')), t.value, `${id} › ${key} › ${grade}: the number as data`);
            }
            checked++;
          }
          assert.equal(text(cells.at(-1)!), f.fallthrough ?? '', `${id} › ${key}: the fall-through column`);
        }
      }
      const links = findAll(table.doc, (e) => e.tagName === 'a').map((a) => attr(a, 'href'));
      assert.ok(links.includes(grainKey(id)), `${id} links its record's API path`);
      assert.ok(links.includes('/grade'), `${id} links /grade`);
      assert.ok(links.includes(record.source_url), `${id} links the Commission's page`);
      const time = findAll(table.doc, (e) => e.tagName === 'time').map((e) => text(e));
      assert.equal(time[0], record.last_scraped.slice(0, 10), `${id} states its own last_scraped`);
    }
    assert.equal(checked, 2069, 'every threshold of the 23 records');
  });

  it('the index lists every class in the list’s order, and the range of dates checked', async () => {
    const page = await injectGet(app.app, '/tables/');
    assert.equal(page.status, 200);
    const doc = parse(page.text());
    const rows = findAll(doc, (e) => e.tagName === 'th' && attr(e, 'scope') === 'row');
    const hrefs = rows.map((th) => attr(findAll(th, (e) => e.tagName === 'a')[0]!, 'href'));
    assert.deepEqual(
      hrefs,
      build.manifest.grain_ids.map((id) => tableKey(id)),
    );
    const [lead] = findAll(doc, (e) => attr(e, 'class') === 'lead');
    assert.match(text(lead!), /these 23 were checked between 2026-04-12 and 2026-08-01\./);
    // no entry of the dataset changed a printed number: each class's are as first published, and
    // the crop_years entries of 2026-11-27 (the API's fields alone) move none
    const changed = rows.map((th) => text(findAll(th.parentNode as Element, (e) => e.tagName === 'td').at(-1)!));
    assert.deepEqual(changed, Array(23).fill('2026-11-22 (first published)'));
  });

  it('a page tells the printed numbers from a change to the API’s fields', async () => {
    const table = readTable((await injectGet(app.app, '/tables/CWRS')).text());
    assert.deepEqual(table.changed, []);
    const [section] = findAll(table.doc, (e) => attr(e, 'class') === 'changes');
    assert.match(
      text(section!),
      /^What changed Printed numbers: no change in crop year 2025\/26; the class was first published on 2026-11-22\. /,
    );
    assert.match(
      text(section!),
      /The API's fields changed on 2026-11-27: crop_years; no printed number changed with them\./,
    );
  });

  it('the front door and /docs link the tables, the front door each class’s page', async () => {
    for (const path of ['/', '/docs']) {
      const doc = parse((await injectGet(app.app, path)).text());
      const hrefs = findAll(doc, (e) => e.tagName === 'a').map((a) => attr(a, 'href'));
      assert.ok(hrefs.includes('/tables/'), `${path} links /tables/`);
      if (path === '/') for (const id of build.manifest.grain_ids) assert.ok(hrefs.includes(tableKey(id)), id);
    }
  });

  it('needs no key, and is the build’s body as written: ETag, br, 304, HEAD, a shared cache', async () => {
    // a file's plain name: shared for a short lifetime (the OpenAPI document is filled per origin now)
    const shared = await injectGet(app.app, '/assets/site.css');
    for (const [url, route] of [
      ['/tables/', '/tables/'],
      ['/tables/CWRS', '/tables/CWRS'],
      ['/tables/CWRS?crop_year=2025/26', '/tables/CWRS?crop_year=2025/26'],
      ['/tables/cwrs?crop_year=2025%2F26', '/tables/CWRS?crop_year=2025/26'],
      ['/tables/CWAD?crop_year=2025/26&utm=x', '/tables/CWAD?crop_year=2025/26'],
    ] as const) {
      const entry = build.manifest.bodies[build.manifest.routes[route]!]!;
      const plain = await injectGet(app.app, url);
      assert.equal(plain.status, 200, url);
      assert.equal(plain.headers['content-type'], 'text/html; charset=utf-8');
      assert.equal(plain.headers.etag, entry.identity.etag, url);
      assert.equal(
        plain.headers['cache-control'],
        shared.headers['cache-control'],
        `${url}: shared, as every public body`,
      );
      assert.match(plain.headers['cache-control']!, /public/);
      assert.deepEqual(plain.body, stored(route), `${url}: the stored bytes, nothing made per request`);
      const br = await injectGet(app.app, url, undefined, { 'accept-encoding': 'br' });
      assert.equal(br.headers['content-encoding'], 'br');
      assert.deepEqual(br.body, stored(route, '.br'), `${url}: the stored brotli bytes`);
      const fresh = await injectGet(app.app, url, undefined, { 'if-none-match': entry.identity.etag });
      assert.equal(fresh.status, 304, url);
      assert.equal(fresh.body.length, 0);
      const head = await inject(app.app, { method: 'HEAD', url });
      assert.equal(head.status, 200);
      assert.equal(head.headers.etag, entry.identity.etag);
      assert.equal(head.body.length, 0);
    }
  });

  it('refuses what names no page with the catalogue’s errors', async () => {
    for (const [url, status, code] of [
      ['/tables/NOPE', 404, 'unknown_grain'],
      ['/tables/CWRS?crop_year=2024/25', 404, 'unknown_crop_year'],
      ['/tables/CWRS?crop_year=2025-26', 400, 'bad_crop_year'],
      ['/tables/CWRS?crop_year=2025/26&crop_year=2025/26', 400, 'repeated_param'],
      ['/tables/CW%ZZ', 400, 'bad_query'],
    ] as const) {
      const r = await injectGet(app.app, url);
      assert.equal(r.status, status, url);
      assert.equal(r.json().code, code, url);
    }
    assert.equal((await inject(app.app, { method: 'POST', url: '/tables/CWRS' })).status, 405);
  });
});

describe('a class with two crop years', () => {
  let site: EmittedSite;
  let validated: Dataset;
  const body = (route: string) => plainOf(site, route).toString();
  before(async () => {
    const dataset = newYearDataset('two-years', root);
    const summary = NEW_YEAR_SUMMARY;
    const draft = draftChangelog(dataset, {
      summary,
      effectiveDate: '2026-08-01',
      now: new Date('2026-11-25T10:00:00Z'),
    });
    assert.ok(draft.ok, draft.ok ? '' : draft.reason);
    const r = await buildSite(dataset);
    assert.ok(r.ok, r.ok ? '' : JSON.stringify(r.errors));
    site = r.site;
    validated = r.dataset;
  });

  it('marks the changed cell with the old value, and lists it above the table linking the entry', () => {
    const page = body('/tables/CWRS');
    assert.equal(page, body('/tables/CWRS?crop_year=2026/27'), 'the current year is the page itself');
    const table = readTable(page);
    assert.deepEqual(table.changed, ['Ergot % › No. 1 CWRS']);
    const ergot = table.rows.get('Foreign material › Ergot %')!;
    assert.deepEqual(changedCell(ergot[0]!), { now: '0.03', was: '0.04' });
    const [section] = findAll(table.doc, (e) => attr(e, 'class') === 'changes');
    assert.ok(section, 'a list above the table');
    assert.match(text(section), /^What changed Printed numbers last changed on 2026-08-01: The 2026\/27 table/);
    assert.match(text(section), /Ergot, No\. 1 CWRS: was 0\.04, now 0\.03/);
    assert.match(text(section), /Also changed: effective_crop_year, crop_years, last_scraped\./);
    const links = findAll(section, (e) => e.tagName === 'a').map((a) => attr(a, 'href'));
    assert.deepEqual(links, ['/api/changelog?grain_id=CWRS', '#c-ergot-0', '/tables/changes.atom']);
    assert.ok(page.indexOf('class="changes"') < page.indexOf('<table'), 'above the table');
  });

  it('the index dates CWRS by its changed number; a later change to the API’s fields alone is said apart', () => {
    const index = parse(body('/tables/'));
    const row = findAll(index, (e) => e.tagName === 'tr' && text(e).startsWith('Canada Western Red Spring'))[0]!;
    assert.equal(text(findAll(row, (e) => e.tagName === 'td').at(-1)!), '2026-08-01');
    // an entry after it that names crop_years alone: the numbers' date and marks stay, the fields are said apart
    const later = {
      id: '2026-11-26-fields-only',
      crop_year: '2026/27',
      effective_date: '2026-11-26',
      grain_ids_affected: ['CWRS'],
      summary: 'A field of the API.',
      created_at: '2026-11-26T10:00:00Z',
      changes: [{ grain_id: 'CWRS', factor_id: null, grade: null, field: 'crop_years', from: null, to: ['2026/27'] }],
    };
    const bodies = tableBodies({ ...validated, changelog: [...validated.changelog, later] });
    const table = readTable(bodies.get('/tables/CWRS')!);
    assert.deepEqual(table.changed, ['Ergot % › No. 1 CWRS'], 'the number changed stays marked');
    const [section] = findAll(table.doc, (e) => attr(e, 'class') === 'changes');
    assert.match(text(section!), /^What changed Printed numbers last changed on 2026-08-01: /);
    assert.match(
      text(section!),
      /The API's fields changed later, on 2026-11-26: crop_years; no printed number changed with them\./,
    );
    const row2 = findAll(
      parse(bodies.get('/tables/')!),
      (e) => e.tagName === 'tr' && text(e).startsWith('Canada W'),
    )[0]!;
    assert.equal(text(findAll(row2, (e) => e.tagName === 'td').at(-1)!), '2026-08-01', 'the index keeps its date');
  });

  it('shows the past year as it stood, unmarked, and links between the years', () => {
    const page = body('/tables/CWRS?crop_year=2025/26');
    const table = readTable(page);
    assert.deepEqual(table.changed, []);
    assert.equal(text(table.rows.get('Foreign material › Ergot %')![0]!), '0.04');
    assert.match(page, /<a href="\/tables\/CWRS">2026\/27<\/a>/);
    assert.match(page, /<strong aria-current="page">2025\/26<\/strong>/);
    assert.match(page, /<a href="\/api\/grains\/CWRS\?crop_year=2025\/26">/);
  });
});
