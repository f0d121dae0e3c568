// The changes feed (docs/contract.md, The front door): GET /tables/changes.atom read from a real
// gateway over HTTP, with no key, by a real feed parser (feedparser, strict), held against the
// changelog the API serves: an entry for each entry, its summary, crop year, effective date and
// classes, and every link it has leads to a page that exists, at the cell it names. Then a dataset
// whose entry changed a printed number: the feed links the marked cell. And what tells a printed
// number from the API's fields (class-changes.ts), row by row.
import assert from 'node:assert/strict';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import FeedParser from 'feedparser';
import { draftChangelog } from '../build/changelog/files.ts';
import { printsNumber } from '../build/changelog/printed.ts';
import { firstSentence } from '../build/pages/changes-feed.ts';
import { publishSite } from '../build/publish/publish.ts';
import type { Change } from '../build/types.ts';
import { buildSite, plainOf } from './helpers/build.ts';
import { NEW_YEAR_SUMMARY, newYearDataset, tempDir } from './helpers/dataset.ts';
import { get, register, root, startTestGateway, type TestGateway } from './helpers/gateway.ts';

const FEED = '/tables/changes.atom';

/** The feed as a reader sees it: its links resolved against the address it was fetched from. */
async function readFeed(url: string, text: string): Promise<{ meta: FeedParser.Meta; items: FeedParser.Item[] }> {
  const parser = new FeedParser({ feedurl: url, strict: true });
  Readable.from([text]).pipe(parser);
  const items: FeedParser.Item[] = [];
  for await (const item of parser) items.push(item);
  return { meta: parser.meta, items };
}

/** Every link of an entry: its own, and those in its content, resolved. */
function linksOf(item: FeedParser.Item, base: string): string[] {
  type Link = { '@': { rel: string; href: string } };
  const own = [(item['atom:link'] as Link | Link[] | undefined) ?? []].flat();
  assert.equal(own.filter((l) => l['@'].rel === 'alternate').length, 1, `${item.guid}: one alternate link`);
  assert.ok(
    own.some((l) => l['@'].rel === 'related'),
    `${item.guid}: a related link per class`,
  );
  const inContent = [...item.description.matchAll(/href="([^"]+)"/g)].map((m) => new URL(m[1]!, base).href);
  return [...own.map((l) => new URL(l['@'].href, base).href), ...inContent];
}

/** Fetches each link once: 200 from the gateway, and the cell its fragment names is on the page. */
async function checkLinks(gatewayUrl: string, links: string[]): Promise<number> {
  const pages = new Map<string, string>();
  for (const link of new Set(links)) {
    const url = new URL(link);
    assert.equal(url.origin, new URL(gatewayUrl).origin, `${link} is on the service`);
    const path = url.pathname + url.search;
    if (!pages.has(path)) {
      const res = await get(gatewayUrl, path);
      assert.equal(res.status, 200, `${path} exists`);
      pages.set(path, res.text());
    }
    if (url.hash) assert.ok(pages.get(path)!.includes(` id="${url.hash.slice(1)}"`), `${link}: its cell is there`);
  }
  return pages.size;
}

describe('the changes feed of the real dataset, over HTTP', () => {
  let t: TestGateway;
  let key: string;
  before(async () => {
    t = await startTestGateway();
    key = await register(t.url, 'feed@example.com');
  });
  after(() => t.close());

  it('is a public precomputed body: Atom type, ETag and 304, brotli, shared cache, no key', async () => {
    const res = await get(t.url, FEED);
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'application/atom+xml; charset=utf-8');
    assert.match(String(res.headers['cache-control']), /^public, max-age=\d+, s-maxage=\d+$/);
    const tables = await get(t.url, '/tables/');
    assert.equal(res.headers['cache-control'], tables.headers['cache-control'], 'cached like the tables pages');
    assert.match(String(res.headers.etag), /^"[0-9a-f]{32}"$/);
    const again = await get(t.url, FEED, undefined, { 'if-none-match': String(res.headers.etag) });
    assert.equal(again.status, 304);
    const br = await get(t.url, FEED, undefined, { 'accept-encoding': 'br' });
    assert.equal(br.headers['content-encoding'], 'br');
  });

  it('parses as Atom and holds every changelog entry, newest first, with its facts and working links', async () => {
    const res = await get(t.url, FEED);
    const url = `${t.url}${FEED}`;
    const { meta, items } = await readFeed(url, res.text());
    assert.equal(meta['#type'], 'atom');
    assert.equal(meta.title, 'Grain grading tables: changes');
    assert.equal(meta.link, new URL('/tables/', url).href, 'the alternate is the tables index');
    assert.equal(meta.xmlurl, url, 'the self link resolves to where it was fetched');

    const changelog = (await get(t.url, '/api/changelog?limit=100', key)).json();
    const grains = new Map<string, string>(
      (await get(t.url, '/api/grains', key))
        .json()
        .grains.map((g: { grain_id: string; grain_name: string }) => [g.grain_id, g.grain_name]),
    );
    assert.ok(changelog.count > 0);
    assert.equal(items.length, changelog.count, 'one entry per changelog entry');
    assert.equal(meta.date?.toISOString(), new Date(changelog.entries[0].created_at).toISOString());
    const guids = new Set<string>();
    const links: string[] = [];
    changelog.entries.forEach(
      (
        e: { id: string; summary: string; crop_year: string; effective_date: string; grain_ids_affected: string[] },
        i: number,
      ) => {
        const item = items[i]!;
        assert.match(item.guid, /^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        guids.add(item.guid);
        assert.equal(item.summary, e.summary, `${e.id}: its summary`);
        assert.ok(e.summary.startsWith(item.title.replace(/…$/, '')), `${e.id}: the title opens the summary`);
        assert.equal(
          item.date?.toISOString(),
          new Date((e as unknown as { created_at: string }).created_at).toISOString(),
        );
        assert.deepEqual(item.categories, [...e.grain_ids_affected, e.crop_year], `${e.id}: classes and crop year`);
        assert.ok(item.description.includes(`Crop year ${e.crop_year}, in effect from ${e.effective_date}`), e.id);
        assert.ok(item.description.includes(e.id), `${e.id}: names the entry`);
        for (const id of e.grain_ids_affected)
          assert.ok(item.description.includes(`(${id})</a>`) && grains.has(id), `${e.id}: links ${id}`);
        links.push(...linksOf(item, url));
      },
    );
    assert.equal(guids.size, items.length, 'an id per entry');
    assert.ok((await checkLinks(t.url, links)) >= grains.size, 'every class page is linked');
  });

  it('is advertised by the front door and the tables pages', async () => {
    const type = 'application/atom+xml';
    const alternate = `<link rel="alternate" type="${type}" title="Grading tables: changes" href="${FEED}">`;
    for (const path of ['/', '/tables/', '/tables/CWRS']) {
      const page = (await get(t.url, path)).text();
      assert.ok(page.includes(alternate), `${path} advertises the feed`);
    }
    assert.ok(!(await get(t.url, '/docs')).text().includes('application/atom+xml'), 'the reference does not');
  });
});

describe('the changes feed of a change to a printed number', () => {
  let t: TestGateway;
  let feed: string;
  before(async () => {
    const dataset = newYearDataset('feed-cell', root);
    const draft = draftChangelog(dataset, {
      summary: NEW_YEAR_SUMMARY,
      effectiveDate: '2026-08-01',
      now: new Date('2026-11-25T10:00:00Z'),
    });
    assert.ok(draft.ok, draft.ok ? '' : draft.reason);
    const r = await buildSite(dataset);
    assert.ok(r.ok, r.ok ? '' : JSON.stringify(r.errors));
    const again = await buildSite(dataset);
    assert.ok(again.ok);
    const siteDir = tempDir('feed-site');
    publishSite(siteDir, r.site);
    feed = plainOf(r.site, FEED).toString();
    const twice = plainOf(again.site, FEED);
    assert.equal(twice?.toString(), feed, 'the same dataset gives the same feed, byte for byte');
    t = await startTestGateway({ SITE_DIR: siteDir });
  });
  after(() => t?.close());

  it('links the changed cell on the page that marks it, and names the crop year and date', async () => {
    const url = `${t.url}${FEED}`;
    const { items } = await readFeed(url, (await get(t.url, FEED)).text());
    const item = items.find((i) => i.summary.includes('ergot limit is 0.03%'));
    assert.ok(item, 'the new entry is in the feed');
    assert.equal(item.title, NEW_YEAR_SUMMARY, 'the whole first sentence, "No." and all');
    assert.equal(item.link, new URL('/tables/CWRS#c-ergot-0', url).href, 'its link is the changed cell');
    assert.deepEqual(item.categories, ['CWRS', '2026/27']);
    assert.match(
      item.description,
      /printed numbers changed in <a href="[^"]*\/tables\/CWRS#c-ergot-0">Ergot, No\. 1 CWRS/,
    );
    assert.match(item.description, /the API's fields effective_crop_year, crop_years, last_scraped/);
    await checkLinks(t.url, linksOf(item, url));
    const page = (await get(t.url, '/tables/CWRS')).text();
    assert.match(page, /<td id="c-ergot-0" data-changed>/, 'the cell linked is the cell marked');
  });

  it('keeps the older entries as they were: the same ids as the real dataset gives them', async () => {
    const real = await startTestGateway();
    try {
      const ids = async (base: string) =>
        (await readFeed(`${base}${FEED}`, (await get(base, FEED)).text())).items.map((i) => i.guid);
      const [before, now] = [await ids(real.url), await ids(t.url)];
      assert.equal(now.length, before.length + 1, 'a new entry adds one id');
      assert.deepEqual(
        now.filter((id) => before.includes(id)),
        before,
        'and changes none of the others, nor their order',
      );
    } finally {
      await real.close();
    }
  });

  it('is well-formed XML with every text escaped', () => {
    assert.ok(feed.startsWith('<feed xmlns="http://www.w3.org/2005/Atom"'));
    assert.ok(!/&(?!amp;|lt;|gt;|quot;|#39;)/.test(feed), 'no bare ampersand');
  });
});

describe("the changes feed of a correction to a finished crop year's table", () => {
  let t: TestGateway;
  before(async () => {
    // the docs' example (docs/dataset-editing.md): CWRS's 2025/26 table, whose year had ended, corrected
    const dataset = join(tempDir('feed-correction'), 'dataset');
    cpSync(join(root, 'dataset'), dataset, { recursive: true });
    const file = join(dataset, 'grains/CWRS.yaml');
    const yaml = readFileSync(file, 'utf8');
    const edited = yaml.replace('thresholds: [0.04, 0.04, 0.04, 0.10]', 'thresholds: [0.03, 0.04, 0.04, 0.10]');
    assert.notEqual(edited, yaml);
    writeFileSync(file, edited);
    const now = new Date('2026-11-29T08:00:00Z');
    const summary = "No. 1 CWRS's ergot limit is now 0.03%. The 2025/26 page printed 0.03; the dataset had 0.04.";
    const draft = draftChangelog(dataset, { summary, effectiveDate: '2026-11-29', now, correction: true });
    assert.ok(draft.ok, draft.ok ? '' : draft.reason);
    const r = await buildSite(dataset, { now });
    assert.ok(r.ok, r.ok ? '' : JSON.stringify(r.errors));
    const siteDir = tempDir('feed-correction-site');
    publishSite(siteDir, r.site);
    t = await startTestGateway({ SITE_DIR: siteDir });
  });
  after(() => t?.close());

  it('titles it with the whole first sentence, "No." kept, and says it is a correction and when', async () => {
    const url = `${t.url}${FEED}`;
    const { items } = await readFeed(url, (await get(t.url, FEED)).text());
    const item = items[0]!;
    assert.equal(item.title, "No. 1 CWRS's ergot limit is now 0.03%.");
    assert.deepEqual(item.categories, ['CWRS', '2025/26', 'correction']);
    assert.ok(item.description.includes('Correction to the 2025/26 table, published 2026-11-29.'), item.description);
    assert.equal(item.link, new URL('/tables/CWRS#c-ergot-0', url).href);
    const older = items.slice(1).map((i) => i.description);
    assert.ok(
      older.every((d) => !d.includes('Correction to')),
      'no other entry is called a correction',
    );
  });
});

describe("a feed entry's title: the summary's first sentence (changes-feed.ts)", () => {
  const cases: [summary: string, title: string][] = [
    ["No. 1 CWRS's ergot limit is now 0.03%.", "No. 1 CWRS's ergot limit is now 0.03%."],
    ["No. 1 CWRS's ergot limit is now 0.03%. No. 2 is unchanged.", "No. 1 CWRS's ergot limit is now 0.03%."],
    ['Some limits changed, e.g. ergot at No. 2 CWAD. More follows.', 'Some limits changed, e.g. ergot at No. 2 CWAD.'],
    ['Notes revised (i.e. the footnotes). Numbers unchanged.', 'Notes revised (i.e. the footnotes).'],
    ['A limit of 0.5% now.', 'A limit of 0.5% now.'],
    ['No full stop at all', 'No full stop at all'],
  ];
  for (const [summary, title] of cases) {
    it(JSON.stringify(summary), () => assert.equal(firstSentence(summary), title));
  }
});

describe('a printed number or the API fields (class-changes.ts)', () => {
  const c = (factor_id: string | null, grade: string | null, field: string | null): Change =>
    ({ grain_id: 'X', factor_id, grade, field, from: null, to: null }) as Change;
  const cases: [what: string, change: Change, printed: boolean][] = [
    ['a cell’s value', c('ergot', 'No. 1', 'value'), true],
    ['a cell’s decimals', c('ergot', 'No. 1', 'decimals'), true],
    ['a cell’s note', c('ergot', 'No. 1', 'threshold_note'), true],
    ['a cell’s alternative unit value', c('tw', 'No. 1', 'value_alt'), true],
    ['a cell’s kind', c('ergot', 'No. 1', 'value_type'), true],
    ['a whole cell added or removed', c('ergot', 'No. 1', null), true],
    ['a cell’s partial limit (a grading field)', c('ergot', 'No. 1', 'partial'), false],
    ['a fall-through cell', c('ergot', null, 'fallthrough'), true],
    ['a whole factor row', c('ergot', null, null), true],
    ['a factor’s typed outcomes', c('ergot', null, 'fallthrough_outcomes'), false],
    ['a factor’s label', c('ergot', null, 'factor_label'), false],
    ['crop_years', c(null, null, 'crop_years'), false],
    ['effective_crop_year', c(null, null, 'effective_crop_year'), false],
    ['a whole class', c(null, null, null), true],
  ];
  for (const [what, change, printed] of cases) {
    it(`${what}: ${printed ? 'a printed number' : 'not a printed number'}`, () => {
      assert.equal(printsNumber(change), printed);
    });
  }
});
