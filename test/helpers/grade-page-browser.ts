/// <reference lib="dom" />
// GET /grade in a real browser (Debian's Chromium, playwright-core), run by test/browser.test.ts:
// the answer in the table's shape at a laptop's and a phone's width, readable without colour and
// with the keyboard alone; every case of the conformance suite graded on the page as the module
// grades it; a sample that is not JSON, or a value no sample can have, said in words.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import type { SuiteGroup } from '../../build/grading/grade-suite/suite.ts';
import { axeViolations } from './axe-browser.ts';
import { type BrowserStage, chromiumSkip, typeIn } from './chromium.ts';
import { get, register, type TestGateway } from './gateway.ts';
import { suite } from './suite.ts';

export function gradePageInABrowser(stage: BrowserStage) {
  suite('/grade in a browser: the answer in the table’s shape', chromiumSkip, () => {
    let t: TestGateway;
    let browser: Browser;
    let cases: SuiteGroup[];
    /** Each page registers an address of its own, whatever order the tests run in. */
    let pages = 0;
    before(async () => {
      t = stage.t;
      browser = stage.browser;
      cases = (await get(t.url, '/client/grade-suite.json')).json();
    });

    /** /grade with a class loaded, at this width; errors of the page collected. */
    async function loaded(grainId: string, width: number, errors: string[] = []): Promise<Page> {
      const context = await browser.newContext({ viewport: { width, height: 844 } });
      const page = await context.newPage();
      page.on('pageerror', (e) => errors.push(e.message));
      page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
      await page.goto(`${t.url}/grade`);
      await page
        .getByLabel('Your API key')
        .fill(await register(t.url, `page-${grainId.toLowerCase()}-${width}-${++pages}@example.com`));
      await page.getByLabel('Grain class').selectOption(grainId);
      await page.getByRole('button', { name: 'Load the class' }).click();
      await page.locator('#json-form').waitFor({ state: 'visible' });
      return page;
    }

    /** The page's answer to a sample pasted as JSON. */
    async function pasted(page: Page, sample: unknown): Promise<Record<string, unknown>> {
      await page.locator('#result-json').evaluate((e) => {
        e.textContent = '';
      });
      await page.getByLabel(/The sample as/).fill(JSON.stringify(sample));
      await page.getByRole('button', { name: 'Grade the JSON' }).click();
      await page.locator('#result-json').filter({ hasText: '{' }).waitFor({ state: 'attached' });
      return JSON.parse((await page.locator('#result-json').textContent())!);
    }

    const caseOf = (id: string, description: string) =>
      cases.find((g) => g.grain_id === id)!.cases.find((c) => c.description === description)!;

    for (const width of [1280, 390]) {
      it(`an undetermined answer names the judgement that settles it, in the table's shape (${width} px)`, async () => {
        const errors: string[] = [];
        const page = await loaded('CWAD', width, errors);
        const c = caseOf('CWAD', 'penetrated smudge past No. 3, not judged');
        const shown = await pasted(page, c.sample);
        assert.equal(shown.result, 'undetermined');
        assert.equal(await page.locator('#result-grade').textContent(), 'Undetermined: more is needed (below).');
        assert.equal(
          await page.locator('#result-judgments li').textContent(),
          "Judge whether the sample meets No. 4 CWAD's standard for Penetrated smudge (“Consider overall appearance”).",
        );
        const table = page.locator('#answer-table');
        assert.deepEqual(await table.locator('thead th').allTextContents(), [
          'Factor: value entered',
          'No. 3 CWAD',
          'No. 4 CWAD',
        ]);
        const row = table.locator('tbody tr', { has: page.locator('th', { hasText: /^Penetrated smudge/ }) });
        assert.deepEqual(await row.locator('th, td').allInnerTexts(), [
          'Penetrated smudge\n0.6 %',
          '0.50 % (not met)',
          'Decided: Consider overall appearance (not known)',
        ]);
        // the deciding cell is said in words, so it reads the same without colour
        assert.equal(await table.locator('td[data-deciding]').count(), 1);
        assert.ok(
          await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
          'no sideways scroll of the page',
        );
        const region = page.getByRole('region', { name: 'The answer, factor by factor' });
        assert.ok(
          await region.evaluate((e) => e.scrollWidth <= e.clientWidth),
          'the whole table in view, no scrolling',
        );
        assert.deepEqual(await axeViolations(page), []);
        await page.context().close();
        assert.deepEqual(errors, []);
      });

      const marks = 'a grade marks the cell of the grade above that kept the sample from it, keyboard only';
      const name = `${marks} (${width} px)`;
      it(name, async () => {
        const page = await loaded('CWRS', width);
        const c = caseOf('CWRS', 'ergot one place past the limit');
        await page.getByLabel(/The sample as/).focus();
        await typeIn(page, JSON.stringify(c.sample));
        await page.keyboard.press('Tab');
        assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Grade the JSON');
        await page.keyboard.press('Enter');
        await page.locator('#result').waitFor({ state: 'visible' });
        assert.equal(
          await page.evaluate(() => document.activeElement?.id),
          'graded-title',
          'focus moves to the answer',
        );
        assert.equal(await page.locator('#result-grade').textContent(), 'Grade: CW Feed');
        const row = page.locator('#answer-table tbody tr[data-deciding]');
        assert.deepEqual(await row.locator('th, td').allInnerTexts(), [
          'Ergot\n0.05 %',
          'Decided: 0.04 % (not met)',
          '0.10 % (met)',
        ]);
        assert.deepEqual(await page.locator('#answer-table thead th').allTextContents(), [
          'Factor: value entered',
          'No. 3 CWRS',
          'CW Feed',
        ]);
        // the table scrolls by itself if it must, and is reached with Tab
        let focused = '';
        for (let i = 0; i < 10 && focused !== 'The answer, factor by factor'; i++) {
          await page.keyboard.press('Tab');
          focused = await page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? '');
        }
        assert.equal(focused, 'The answer, factor by factor');
        await page.context().close();
      });
    }

    it('says where a pasted sample stops being JSON, and a value no sample can have by its range', async () => {
      const page = await loaded('CWRS', 390);
      await page.getByLabel(/The sample as/).fill('{\n  "values": {"ergot": 0.05,}\n}');
      await page.getByRole('button', { name: 'Grade the JSON' }).click();
      const error = page.locator('#sample-text-error');
      await error.filter({ hasText: 'line' }).waitFor();
      assert.equal(await error.textContent(), 'The sample is not JSON at line 2, column 28: unexpected "}".');
      assert.equal(await page.getByLabel(/The sample as/).getAttribute('aria-invalid'), 'true');
      await page.locator('#v-ergot').fill('-1');
      await page.getByRole('button', { name: 'Grade', exact: true }).click();
      await page.locator('#result').waitFor({ state: 'visible' });
      assert.equal(
        await page.locator('#result-grade').textContent(),
        'The sample cannot be graded: values.ergot: Ergot cannot be -1: it must be from 0 to 100 %.',
      );
      await page.context().close();
    });

    it('grades every case of the conformance suite as the suite expects', async () => {
      const failed: string[] = [];
      let n = 0;
      // One tab and one key for every class, each class loaded into a fresh document (the page
      // stores nothing, so nothing of one class reaches the next): a tab each costs a renderer each
      const context = await browser.newContext({ viewport: { width: 1280, height: 844 } });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
      const key = await register(t.url, `page-suite-${++pages}@example.com`);
      for (const g of cases) {
        await page.goto(`${t.url}/grade`);
        await page.getByLabel('Your API key').fill(key);
        await page.getByLabel('Grain class').selectOption(g.grain_id);
        await page.getByRole('button', { name: 'Load the class' }).click();
        await page.locator('#json-form').waitFor({ state: 'visible' });
        // Each sample goes through the page's own form as a paste does (its submit handler, its
        // rendering), all in one round trip: the typing itself is the other tests' subject
        const answers = await page.evaluate(
          (samples) =>
            samples.map((sample) => {
              const out = document.getElementById('result-json')!;
              out.textContent = '';
              (document.getElementById('sample-text') as HTMLTextAreaElement).value = JSON.stringify(sample);
              (document.getElementById('json-form') as HTMLFormElement).requestSubmit();
              return out.textContent ? JSON.parse(out.textContent) : { shown: 'nothing' };
            }),
          g.cases.map((c) => c.sample),
        );
        for (const [i, c] of g.cases.entries()) {
          const shown = answers[i] as Record<string, unknown>;
          const wrong = Object.keys(c.expected).filter(
            (k) => !isDeepStrictEqual(shown[k], (c.expected as Record<string, unknown>)[k]),
          );
          if (wrong.length) failed.push(`${g.grain_id}: ${c.description}: ${wrong.join(', ')}`);
          n++;
        }
      }
      await context.close();
      assert.deepEqual(errors, []);
      assert.deepEqual(failed, []);
      assert.ok(n >= 115, `${n} cases`);
    });
  });
}
