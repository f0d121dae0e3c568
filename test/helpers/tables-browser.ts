/// <reference lib="dom" />
// The tables' pages in a real browser (docs/contract.md, The front door): Debian's Chromium driven
// by playwright-core against a gateway on port 0, on a laptop and a phone, light and dark: axe-core
// (all rules) on a class's page with a footnote and a floor rule, and (on a phone) on the index and
// on a page with a changed cell marked (rendered by the build's renderer, served in place of a page); the
// wide table scrolls in its own box with the factor column in view; footnotes work by keyboard.
// Run by test/browser.test.ts.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { html } from '../../build/pages/html.ts';
import { renderTablePage } from '../../build/pages/table-page.ts';
import { bodyPath, grainKey, readBuild, tableKey } from '../../build/site-format.ts';
import type { CompiledRecord } from '../../build/types.ts';
import { axeViolations } from './axe-browser.ts';
import { type BrowserStage, chromiumSkip } from './chromium.ts';
import { realSiteDir, type TestGateway } from './gateway.ts';
import { suite } from './suite.ts';

const SCREENS = [
  ['laptop', 1280, 800],
  ['phone', 390, 844],
] as const;

/** CWRS's page with its No. 1 ergot limit marked as changed from 0.05. */
function markedPage(): string {
  const read = (path: string) => readFileSync(join(realSiteDir(), path), 'utf8');
  const build = readBuild(read);
  const record = JSON.parse(read(bodyPath(build, grainKey('CWRS'))!)) as CompiledRecord;
  const change = { grain_id: 'CWRS', factor_id: 'ergot', grade: 'No. 1 CWRS', field: 'value', from: 0.05, to: 0.04 };
  return renderTablePage(record, {
    years: [record.effective_crop_year],
    marks: { intro: html`Changed on <time datetime="2026-08-01">2026-08-01</time>: a test.`, changes: [change] },
    href: tableKey,
    indexHref: '/tables/',
  });
}

export function tablesInABrowser(stage: BrowserStage) {
  suite('the tables in a browser', chromiumSkip, () => {
    let t: TestGateway;
    let browser: Browser;
    before(() => {
      t = stage.t;
      browser = stage.browser;
    });

    async function open(path: string, width: number, height: number, dark: boolean): Promise<Page> {
      const context = await browser.newContext({ viewport: { width, height }, colorScheme: dark ? 'dark' : 'light' });
      await context.route(`${t.url}/tables/__marked`, (r) =>
        r.fulfill({ body: markedPage(), contentType: 'text/html' }),
      );
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
      const res = await page.goto(`${t.url}${path}`);
      assert.equal(res?.status(), 200, path);
      assert.deepEqual(await axeViolations(page), [], `${path}: axe finds no violation`);
      assert.deepEqual(errors, [], `${path}: no console error`);
      assert.equal(await page.locator('h1').count(), 1, `${path}: one h1`);
      assert.ok(
        await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
        `${path}: no sideways scroll of the page`,
      );
      return page;
    }

    it('the key field on /grade looks like the front door’s fields, and spans its column as they do', async () => {
      for (const [, width, height] of SCREENS) {
        const context = await browser.newContext({ viewport: { width, height } });
        const page = await context.newPage();
        const look = async (path: string, field: string, form: string) => {
          await page.goto(`${t.url}${path}`);
          return page.evaluate(
            ([f, c]) => {
              const input = document.querySelector(f!)!;
              const s = getComputedStyle(input);
              const share =
                input.getBoundingClientRect().width / document.querySelector(c!)!.getBoundingClientRect().width;
              return { border: s.border, padding: s.padding, font: s.font, radius: s.borderRadius, wide: share > 0.6 };
            },
            [field, form],
          );
        };
        const email = await look('/', '#email', '#register-form');
        const key = await look('/grade', '#key', '#load-form');
        assert.deepEqual(key, email, `${width}px`);
        assert.ok(key.wide, 'it spans the column');
        await context.close();
      }
    });

    for (const [screen, width, height] of SCREENS) {
      for (const dark of [false, true]) {
        const state = `${screen} ${width}×${height}, ${dark ? 'dark' : 'light'}`;
        it(`axe finds no violation on the tables' pages (${state}); the table scrolls in its box`, async () => {
          const page = await open('/tables/CEWW', width, height, dark);
          const box = page.locator('.table-box');
          const fits = await box.evaluate((e) => e.scrollWidth <= e.clientWidth);
          assert.equal(fits, width >= 1000, 'on a phone the table scrolls inside its box, on a laptop it fits');
          const header = page.locator('.grading th[scope=row]').first();
          assert.equal(await header.evaluate((e) => getComputedStyle(e).position), 'sticky');
          if (!fits) {
            await box.evaluate((e) => e.scrollBy(400, 0));
            const at = (await header.boundingBox())!;
            assert.ok(at.x >= 0 && at.x < 40, `the factor column stays in view (${at.x})`);
          }
          // a footnote is reached from its mark by keyboard, and back
          const mark = page.locator('sup a').first();
          await mark.focus();
          await page.keyboard.press('Enter');
          assert.equal(await page.evaluate(() => location.hash), '#fn-1');
          await page.locator('#fn-1 a').first().focus();
          await page.keyboard.press('Enter');
          assert.match(await page.evaluate(() => location.hash), /^#ref-/);
          await page.context().close();

          if (screen !== 'phone') return; // the index and a marked cell: once per theme
          const index = await open('/tables/', width, height, dark);
          await index.context().close();
          const marked = await open('/tables/__marked', width, height, dark);
          const cell = marked.locator('td[data-changed]');
          assert.equal(await cell.count(), 1);
          assert.equal((await cell.locator('del').textContent())?.trim(), '0.05');
          assert.match((await cell.textContent())!, /0\.04\s+was 0\.05/);
          await marked.context().close();
        });
      }
    }
  });
}
