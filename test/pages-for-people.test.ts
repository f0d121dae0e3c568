// What a person's browser meets off the pages (docs/contract.md, Errors and HTTP): /tables moves to
// /tables/ (its query kept), and a page that is not there is an HTML 404 linking the front door and
// the tables, while the API's paths, and a client that asks for no HTML, keep their JSON errors.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { inject, startTestApp, type TestApp } from './helpers/inject.ts';

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe('pages for people', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('/tables redirects to /tables/, with its query, for GET and HEAD', async () => {
    const cases: [method: string, url: string, location: string][] = [
      ['GET', '/tables', '/tables/'],
      ['HEAD', '/tables', '/tables/'],
      ['GET', '/tables?crop_year=2025/26', '/tables/?crop_year=2025/26'],
    ];
    for (const [method, url, location] of cases) {
      const res = await inject(t.app, { method, url, headers: { accept: BROWSER } });
      assert.equal(res.status, 301, `${method} ${url}`);
      assert.equal(res.headers.location, location);
      assert.equal(res.body.length, 0);
    }
    const followed = await inject(t.app, { url: '/tables/', headers: { accept: BROWSER } });
    assert.equal(followed.status, 200, 'where it leads is the tables page');
    assert.equal((await inject(t.app, { method: 'POST', url: '/tables' })).status, 404, 'only a GET moves');
  });

  it('an unknown page is an HTML 404 linking the front door and the tables, for a browser', async () => {
    for (const url of ['/nothing-here', '/tables/NOPE', '/tables/CWRS?crop_year=1999/00', '/docs/old']) {
      const res = await inject(t.app, { url, headers: { accept: BROWSER } });
      assert.equal(res.status, 404, url);
      assert.equal(res.headers['content-type'], 'text/html; charset=utf-8', url);
      assert.match(res.headers['content-security-policy'] ?? '', /default-src 'none'/, "the pages' own headers");
      const page = res.text();
      assert.match(page, /<h1>Page not found<\/h1>/);
      assert.match(page, /<a href="\/">/, 'links the front door');
      assert.match(page, /<a href="\/tables\/">/, 'links the tables');
    }
    const head = await inject(t.app, { method: 'HEAD', url: '/nothing-here', headers: { accept: BROWSER } });
    assert.equal(head.status, 404);
    assert.equal(head.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(head.body.length, 0);
  });

  it('the API and a client asking for no HTML keep their JSON errors', async () => {
    const cases: [url: string, accept: string | undefined, code: string][] = [
      ['/api/nothing', BROWSER, 'not_found'],
      ['/api/grains/NOPE', BROWSER, 'missing_key'],
      ['/nothing-here', undefined, 'not_found'],
      ['/nothing-here', 'application/json', 'not_found'],
      ['/tables/NOPE', '*/*', 'unknown_grain'],
    ];
    for (const [url, accept, code] of cases) {
      const res = await inject(t.app, { url, headers: accept ? { accept } : {} });
      assert.equal(res.headers['content-type'], 'application/json; charset=utf-8', `${url} (${accept})`);
      assert.equal(res.json().code, code, `${url} (${accept})`);
    }
  });
});
