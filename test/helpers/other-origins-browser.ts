/// <reference lib="dom" />
// A page on another origin, in a real browser (docs/contract.md, Other origins): it reads the public
// bodies (the OpenAPI document, the feed, a table's page, /health, the client's modules), a
// conditional request's preflight included; a keyed endpoint refuses it; and the client package,
// imported there, fails at once with the sentence that says why, sending nothing. The other origin
// is a second server on port 0 of the same host (a port is an origin of its own). Run by
// test/browser.test.ts.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, it } from 'node:test';
import { type BrowserStage, chromiumSkip } from './chromium.ts';
import { register } from './gateway.ts';
import { suite } from './suite.ts';

export function otherOriginsInABrowser(stage: BrowserStage) {
  suite('a page on another origin', chromiumSkip, () => {
    let other: Server;
    let page: string;
    before(async () => {
      other = createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end('<!doctype html><html lang="en"><title>another site</title><p>another site</p></html>');
      });
      await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
      page = `http://127.0.0.1:${(other.address() as AddressInfo).port}/`;
    });
    after(() => new Promise<void>((resolve) => other.close(() => resolve())));

    it('reads the public bodies, their preflight answered; a keyed endpoint refuses it', async () => {
      const context = await stage.browser.newContext();
      try {
        const tab = await context.newPage();
        await tab.goto(page);
        const key = await register(stage.t.url, 'other-origin@example.com');
        const read = await tab.evaluate(
          async ({ base, key }) => {
            const status = (url: string, init?: RequestInit) =>
              fetch(`${base}${url}`, init).then(
                (r) => `${r.status} ${r.headers.get('etag') ? 'etag' : 'no etag'}`,
                () => 'refused',
              );
            return {
              openapi: await status('/api/openapi.json'),
              feed: await status('/tables/changes.atom', { headers: { 'If-None-Match': '"old"' } }),
              table: await status('/tables/CWRS'),
              health: await status('/health'),
              module: await status('/client/grade.js'),
              keyed: await status('/api/grains', { headers: { 'X-API-Key': key } }),
              keyless: await status('/api/grains'),
            };
          },
          { base: stage.t.url, key },
        );
        assert.deepEqual(read, {
          openapi: '200 etag',
          feed: '200 etag', // If-None-Match is no safelisted header: its preflight was answered
          table: '200 etag',
          health: '200 no etag',
          module: '200 etag',
          keyed: 'refused', // the preflight names no X-API-Key
          keyless: 'refused', // a 401 with no Access-Control-Allow-Origin: the page cannot read it
        });
      } finally {
        await context.close();
      }
    });

    it('the client package fails at once, saying why, and sends nothing', async () => {
      const context = await stage.browser.newContext();
      try {
        const tab = await context.newPage();
        const sent: string[] = [];
        tab.on('request', (r) => {
          if (r.url().includes('/api/')) sent.push(r.url());
        });
        await tab.goto(page);
        const failed = await tab.evaluate(async (base) => {
          const { createClient } = await import(`${base}/client/api.js`);
          const client = createClient({ baseUrl: base, key: 'ggt_not-sent', sleep: () => Promise.resolve() });
          const started = performance.now();
          try {
            await client.listGrains();
            return { message: 'answered', status: 0, ms: 0 };
          } catch (err) {
            const e = err as { message: string; status: number | null };
            return { message: e.message, status: e.status, ms: performance.now() - started };
          }
        }, stage.t.url);
        assert.match(failed.message, /does not take API keys from browser pages on other origins/);
        assert.ok(failed.message.includes(page.slice(0, -1)), 'it names the page');
        assert.equal(failed.status, null);
        assert.deepEqual(sent, [], 'no request was sent, so none was retried');
      } finally {
        await context.close();
      }
    });
  });
}
