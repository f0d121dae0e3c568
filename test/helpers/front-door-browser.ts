/// <reference lib="dom" />
// The front door in a real browser (docs/contract.md, The front door): Debian's Chromium driven
// by playwright-core against a gateway on port 0. In CI this must run (.ci/run installs
// chromium-headless-shell); elsewhere it is skipped only when that is missing.
// Run by test/browser.test.ts in two parts (the pages, the keyboard and /grade; every page
// at two sizes, in two themes, with and without JavaScript).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { before, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { MESSAGES } from '../../gateway/errors.ts';
import { axeViolations } from './axe-browser.ts';
import { bundled } from './bundles.ts';
import { type BrowserStage, chromiumSkip, typeIn } from './chromium.ts';
import { get, recordIssuedKey, register, root, type TestGateway } from './gateway.ts';
import { eventually, outbox, tokenIn } from './mail.ts';
import { suite } from './suite.ts';

const artifacts = join(root, 'test-artifacts');

/**
 * The clipboard is the browser's, not a context's: tests running side by side in one Chromium
 * would read each other's keys. A copy and its reading back hold it alone, one after another.
 */
let clipboardFree: Promise<void> = Promise.resolve();
async function withClipboard(use: () => Promise<void>): Promise<void> {
  const free = clipboardFree;
  let release = () => {};
  clipboardFree = new Promise((r) => {
    release = r;
  });
  await free;
  try {
    await use();
  } finally {
    release();
  }
}

/**
 * The screen states axe runs in. Accessibility can differ along each of the three: the theme
 * changes every colour (contrast), the layout what is shown and what scrolls (the side list or
 * the menu of /docs, the key's box), JavaScript the DOM (copy buttons; the key shown in place or
 * on a page of its own). These four of the eight hold every pair of values of every two of them
 * (a phone in either theme, with and without JavaScript, a dark page with and without it, and so
 * on), so what any two do together is seen, at half the cost of all eight; the layout checks run
 * in all eight.
 */
const axeState = (phone: boolean, dark: boolean, javaScript: boolean) => (phone !== dark) === !javaScript;

/** The suite, or its part: the pages and /grade, or the screens. */
export function frontDoorInABrowser(stage: BrowserStage, part: 'pages' | 'screens') {
  const name = part === 'pages' ? 'front door in a browser' : 'front door in a browser, screen by screen';
  suite(
    name,
    chromiumSkip,
    () => {
      let t: TestGateway;
      let browser: Browser;
      /** Console errors and uncaught exceptions of each page, checked at the end of each test. */
      const consoleErrors = new WeakMap<Page, string[]>();
      const closeClean = async (page: Page, expected: RegExp[] = []) => {
        const errors = consoleErrors.get(page)!;
        await page.context().close();
        assert.equal(errors.length, expected.length, errors.join('\n'));
        for (const [i, re] of expected.entries()) assert.match(errors[i]!, re);
      };

      before(() => {
        t = stage.t;
        browser = stage.browser;
      });

      async function open(
        width = 1000,
        opts: { height?: number; javaScript?: boolean; dark?: boolean; path?: string } = {},
      ): Promise<Page> {
        const context = await browser.newContext({
          viewport: { width, height: opts.height ?? 900 },
          javaScriptEnabled: opts.javaScript ?? true,
          colorScheme: opts.dark ? 'dark' : 'light',
        });
        await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
        const page = await context.newPage();
        const errors: string[] = [];
        consoleErrors.set(page, errors);
        page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
        page.on('pageerror', (e) => errors.push(e.message));
        const res = await page.goto(`${t.url}${opts.path ?? '/'}`);
        assert.equal(res?.status(), 200);
        return page;
      }

      if (part === 'pages') {
        it('says what the service is, where the numbers come from, and lists the classes', async () => {
          const page = await open();
          assert.equal(await page.locator('h1').textContent(), 'Grain grading tables');
          const source = (await page.locator('#source + p').textContent())!.replace(/\s+/g, ' ');
          assert.match(source, /Official Grain Grading Guide/);
          assert.match(source, /crop years 2025\/26 \(9 classes\) and 2026\/27 \(14 classes\)/);
          assert.match(source, /last checked against the Commission's pages between 2026-04-12 and 2026-08-01/);
          const ids = await page.locator('#classes ~ .scroll tbody td:first-child').allTextContents();
          assert.equal(ids.length, 23);
          assert.equal(ids[0], 'CWRS');
          await closeClean(page);
        });

        const registers =
          'registers an address, shows the key once with a copy button and a curl line, and the key works';
        it(registers, async () => {
          const page = await open();
          await page.getByLabel('E-mail address').fill('Browser.User@Example.com');
          await page.getByRole('button', { name: 'Get a key' }).click();
          await page.locator('#result').waitFor({ state: 'visible' });
          const key = (await page.locator('#api-key').textContent())!;
          assert.match(key, /^ggt_[A-Za-z0-9_-]{38}$/);
          recordIssuedKey(key);
          assert.match((await page.locator('#result .warning').textContent())!, /shown only once/);
          assert.equal(
            await page.locator('#curl-line').textContent(),
            `curl -H 'X-API-Key: ${key}' '${t.url}/api/grains'`,
          );
          // the key the page showed works against the API, from here
          const res = await get(t.url, '/api/grains', key);
          assert.equal(res.status, 200);
          assert.equal(res.json().count, 23);
          await withClipboard(async () => {
            await page.getByRole('button', { name: 'Copy key' }).click();
            await page.locator('#copy-status').filter({ hasText: 'copied' }).waitFor();
            assert.equal(await page.evaluate(() => navigator.clipboard.readText()), key);
          });
          mkdirSync(artifacts, { recursive: true });
          await page.screenshot({ path: join(artifacts, 'front-door-after-registration.png'), fullPage: true });
          await closeClean(page);
        });

        it('shows the API error in words next to the field for an invalid address', async () => {
          const page = await open(375); // a phone's width
          await page.getByLabel('E-mail address').fill('not-an-address');
          await page.getByRole('button', { name: 'Get a key' }).click();
          const error = page.locator('#email-error');
          await error.filter({ hasText: 'not valid' }).waitFor();
          assert.equal(await error.textContent(), MESSAGES.badEmail);
          assert.equal(await page.getByLabel('E-mail address').getAttribute('aria-invalid'), 'true');
          assert.ok(await page.locator('#result').isHidden());
          // nothing wider than the screen
          assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth));
          // the browser reports the refused request itself; nothing else
          await closeClean(page, [/status of 400 \(Bad Request\)/]);
        });

        it('registers with the keyboard alone, with a visible focus', async () => {
          const page = await open();
          let focused = '';
          for (let i = 0; i < 10 && focused !== 'email'; i++) {
            await page.keyboard.press('Tab');
            focused = await page.evaluate(() => document.activeElement?.id ?? '');
          }
          assert.equal(focused, 'email', 'the field is reached with Tab');
          const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
          assert.notEqual(outline, 'none', 'the focused field shows its focus');
          await typeIn(page, 'keyboard@example.com');
          await page.keyboard.press('Enter');
          await page.locator('#result').waitFor({ state: 'visible' });
          assert.equal(
            await page.evaluate(() => document.activeElement?.id),
            'result-title',
            'focus moves to the new key',
          );
          await page.keyboard.press('Tab'); // the key's copy button
          assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Copy key');
          await withClipboard(async () => {
            await page.keyboard.press('Enter');
            await page.locator('#copy-status').filter({ hasText: 'copied' }).waitFor();
          });
          await closeClean(page);
        });

        it('registers with the keyboard alone without JavaScript: the answer page shows the key first', async () => {
          const page = await open(390, { height: 844, javaScript: false });
          let focused = '';
          for (let i = 0; i < 10 && focused !== 'email'; i++) {
            await page.keyboard.press('Tab');
            focused = await page.evaluate(() => document.activeElement?.id ?? '');
          }
          assert.equal(focused, 'email', 'the field is reached with Tab');
          await typeIn(page, 'keyboard-nojs@example.com');
          await page.keyboard.press('Enter');
          await page.locator('#api-key').filter({ hasText: 'ggt_' }).waitFor();
          recordIssuedKey((await page.locator('#api-key').textContent())!);
          assert.equal(page.url(), `${t.url}/register`, 'the address is not in the URL');
          assert.equal(await page.locator('h1').textContent(), 'Your API key');
          await closeClean(page);
        });

        it('gets a key back without JavaScript: form, mail, link, button; axe on each page', async () => {
          const lost = await register(t.url, 'lost-nojs@example.com');
          const page = await open(390, { height: 844, javaScript: false });
          await page.getByLabel("The account's e-mail").fill('lost-nojs@example.com');
          await page.getByRole('button', { name: 'Mail me a link' }).click();
          await page.locator('h1').filter({ hasText: 'Check your mail' }).waitFor();
          assert.equal(page.url(), `${t.url}/recover`, 'the address is not in the URL');
          assert.deepEqual(await axeViolations(page, { javaScript: false }), []);
          const token = tokenIn(await eventually(() => outbox(t.stateDir).at(-1), 'the recovery mail'))!;
          await page.goto(`${t.url}/recover?code=${token}`);
          assert.deepEqual(await axeViolations(page, { javaScript: false }), []);
          assert.equal((await get(t.url, '/api/grains', lost)).status, 200, 'opening the link changed nothing');
          await page.getByRole('button', { name: 'Revoke my keys and show a new one' }).click();
          await page.locator('#api-key').filter({ hasText: 'ggt_' }).waitFor();
          const key = (await page.locator('#api-key').textContent())!;
          recordIssuedKey(key);
          assert.deepEqual(await axeViolations(page, { javaScript: false }), []);
          assert.equal((await get(t.url, '/api/grains', lost)).status, 401);
          assert.equal((await get(t.url, '/api/grains', key)).status, 200);
          await closeClean(page);
        });

        it('the API reference lists every path and status of the OpenAPI document, with an example each', async () => {
          const doc = (await get(t.url, '/api/openapi.json')).json();
          const page = await open();
          await page.goto(`${t.url}/docs`);
          for (const [path, item] of Object.entries(
            doc.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>,
          )) {
            for (const [method, op] of Object.entries(item)) {
              const section = page.locator(`section[data-path="${path}"][data-method="${method}"]`);
              if (method === 'head') {
                // a GET's twin: said once in Basics, not a section of its own
                assert.equal(await section.count(), 0, `${method} ${path}`);
                continue;
              }
              assert.equal(await section.count(), 1, `${method} ${path}`);
              const statuses = await section
                .locator('tr[data-status]')
                .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-status')));
              assert.deepEqual(statuses.sort(), Object.keys(op.responses).sort(), `${method} ${path}`);
              assert.ok(
                (await section.locator('h3', { hasText: 'Example' }).count()) === 1,
                `an example for ${method} ${path}`,
              );
            }
          }
          await closeClean(page);
        });

        it('loads nothing from another host and logs no console error', async () => {
          const page = await open();
          const hosts = new Set<string>();
          page.on('request', (r) => hosts.add(new URL(r.url()).host));
          await page.reload();
          await page.goto(`${t.url}/docs`);
          await page.goto(`${t.url}/grade`);
          assert.deepEqual([...hosts], [new URL(t.url).host]);
          await closeClean(page);
        });

        /** npm run grade on the gateway's own build, the sample on stdin (async: the gateway runs here). */
        async function gradeByCli(grainId: string, sample: string): Promise<string> {
          const command = await bundled('grade', grainId, '-', '--site', t.siteDir);
          return new Promise((resolve, reject) => {
            const child = spawn(process.execPath, command, { cwd: root });
            let out = '';
            child.stdout.on('data', (d) => (out += d));
            child.on('error', reject);
            child.on('close', (code) =>
              code === 0 ? resolve(out) : reject(new Error(`npm run grade exited ${code}`)),
            );
            child.stdin.end(sample);
          });
        }

        // Grading in the browser gives what the CLI gives, for three classes.
        const GRADED = [
          ['CWRS', 1280, 800, false],
          ['CORN_CW', 390, 844, true],
          ['BARLEY_GP_CW', 1280, 800, true],
        ] as const;
        for (const [grainId, width, height, dark] of GRADED) {
          it(
            `grades a ${grainId} sample on /grade as npm run grade does ` +
              `(${width}×${height}, ${dark ? 'dark' : 'light'})`,
            async () => {
              const key = await register(t.url, `grader-${grainId.toLowerCase()}@example.com`);
              const page = await open(width, { height, dark, path: '/grade' });
              await page.getByLabel('Your API key').fill(key);
              await page.getByLabel('Grain class').selectOption(grainId);
              await page.getByRole('button', { name: 'Load the class' }).click();
              await page.locator('#sample-form').waitFor({ state: 'visible' });
              // a sample as a person would type it: minimums met generously, Totals and one part measured,
              // every judgement at the best grade, the first track and colour
              // (the fields and their hints read in one round trip, each field then typed in)
              const fields = await page
                .locator('#sample-fields input[data-factor]')
                .evaluateAll((inputs) =>
                  inputs.map((e) => [e.id, document.getElementById(`${e.id}-hint`)?.textContent ?? ''] as const),
                );
              let parts = 0;
              for (const [id, hint] of fields) {
                const input = page.locator(`[id="${id}"]`);
                if (hint.startsWith('a minimum')) await input.fill('99');
                else if (hint.startsWith('a Total')) await input.fill('0.4');
                else if (hint.startsWith('a maximum') && parts++ === 0) await input.fill('0.4');
              }
              for (const select of await page.locator('#sample-fields select').all()) {
                await select.selectOption({ index: 1 });
              }
              await page.getByRole('button', { name: 'Grade', exact: true }).click();
              await page
                .locator('#result')
                .waitFor({ state: 'visible', timeout: 5_000 })
                .catch(() => {
                  throw new Error(`no result: ${consoleErrors.get(page)!.join('; ')}`);
                });
              const sample = (await page.locator('#sample-json').textContent())!;
              const shown = JSON.parse((await page.locator('#result-json').textContent())!);
              if (grainId === 'CWRS')
                assert.match(sample, /"accounts": \{/, "a floor rule's account is offered and sent");
              assert.deepEqual(shown, JSON.parse(await gradeByCli(grainId, sample)), 'the same answer as the CLI');
              assert.match(
                (await page.locator('#result-grade').textContent())!,
                /^(Grade: |Undetermined|Fails the lowest grade)/,
              );
              assert.ok(!page.url().includes(key), 'the key never enters the URL');
              assert.deepEqual(
                await page.evaluate(() => [localStorage.length, sessionStorage.length, document.cookie]),
                [0, 0, ''],
                'nothing is stored',
              );
              assert.deepEqual(await axeViolations(page, { dark }), []);
              await page.screenshot({ path: join(artifacts, `grade-${grainId}.png`), fullPage: true });
              await closeClean(page);
            },
          );
        }
        for (const dark of [false, true]) {
          it(
            `axe finds no violation on /grade before a class is loaded (${dark ? 'dark' : 'light'}), ` +
              'and it says what it needs without JavaScript',
            async () => {
              const page = await open(390, { height: 844, dark, path: '/grade' });
              assert.deepEqual(await axeViolations(page, { dark }), []);
              await closeClean(page);
              const off = await open(390, { height: 844, dark, path: '/grade', javaScript: false });
              assert.match((await off.locator('noscript').textContent()) ?? '', /needs JavaScript/);
              assert.deepEqual(await axeViolations(off, { javaScript: false, dark }), []);
              await closeClean(off);
            },
          );
        }
      }
      if (part === 'screens') {
        // A laptop and a phone, light and dark, with and without JavaScript.
        const SCREENS = [
          ['laptop', 1280, 800],
          ['phone', 390, 844],
        ] as const;
        for (const [screen, width, height] of SCREENS) {
          for (const dark of [false, true]) {
            for (const javaScript of [true, false]) {
              const state =
                `${screen} ${width}×${height}, ${dark ? 'dark' : 'light'}, ` +
                `JavaScript ${javaScript ? 'on' : 'off'}`;
              const axe = axeState(screen === 'phone', dark, javaScript);
              const andAxe = axe ? '; axe finds no violation' : '';
              const registers = `registers and shows the whole key above the fold (${state})`;
              it(`${registers}; the example works with it${andAxe}`, async () => {
                const page = await open(width, { height, javaScript, dark });
                const posts: string[] = [];
                page.on('request', (r) => r.url().includes('email') && posts.push(r.url()));
                await page.getByLabel('E-mail address').fill(`screen-${width}-${dark}-${javaScript}@example.com`);
                await page.getByRole('button', { name: 'Get a key' }).click();
                const keyBox = page.locator('#api-key');
                await keyBox.filter({ hasText: 'ggt_' }).waitFor();
                assert.deepEqual(posts, [], 'the address never enters a URL');
                const key = (await keyBox.textContent())!;
                assert.match(key, /^ggt_[A-Za-z0-9_-]{38}$/);
                recordIssuedKey(key);
                const box = (await keyBox.boundingBox())!;
                assert.ok(
                  box.y >= 0 && box.y + box.height <= height,
                  `the key is within the first screen (${JSON.stringify(box)})`,
                );
                assert.ok(box.x >= 0 && box.x + box.width <= width, 'and within its width');
                assert.ok(await keyBox.evaluate((e) => e.scrollWidth <= e.clientWidth), 'nothing of it is cut off');
                assert.ok(
                  await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
                  'no sideways scroll',
                );
                const command = (await page.locator('#curl-line').textContent())!;
                const m = /^curl -H 'X-API-Key: (ggt_[^']+)' '([^']+)'$/.exec(command);
                assert.ok(m, `a quoted command: ${command}`);
                assert.equal(m[1], key);
                const url = new URL(m[2]!);
                assert.equal(url.origin, t.url, 'the example names the origin the page came from');
                assert.equal((await get(t.url, url.pathname, key)).status, 200, 'the example works');
                if (javaScript) {
                  await withClipboard(async () => {
                    await page.getByRole('button', { name: 'Copy key' }).click();
                    await page.locator('#copy-status').filter({ hasText: 'copied' }).waitFor();
                    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), key);
                  });
                } else
                  assert.ok(
                    await page.getByRole('button', { name: 'Copy key' }).isHidden(),
                    'no button that cannot work',
                  );
                if (axe) assert.deepEqual(await axeViolations(page, { javaScript, dark }), []);
                mkdirSync(artifacts, { recursive: true });
                await page.screenshot({
                  path: join(
                    artifacts,
                    `registered-${screen}-${dark ? 'dark' : 'light'}-${javaScript ? 'js' : 'nojs'}.png`,
                  ),
                });
                await closeClean(page);
              });
              for (const path of ['/', '/docs']) {
                it(`${path} is laid out for the screen (${state})${andAxe}`, async () => {
                  const page = await open(width, { height, javaScript, dark, path });
                  assert.ok(
                    await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
                    'no sideways scroll',
                  );
                  if (path === '/docs') {
                    // header and parameter names are never broken inside a name
                    const broken = await page
                      .locator('code.name')
                      .evaluateAll((els) => els.filter((e) => e.getClientRects().length > 1).map((e) => e.textContent));
                    assert.deepEqual(broken, []);
                    // the navigation stays at hand: a side list on a laptop, a menu on a phone
                    const nav = page.locator('nav.side');
                    assert.equal(await nav.evaluate((e) => getComputedStyle(e).position), 'sticky');
                    await page.locator('#op-get-api-changelog').scrollIntoViewIfNeeded();
                    const box = (await nav.boundingBox())!;
                    assert.ok(box.y >= 0 && box.y < height, 'still in view further down the page');
                    if (width >= 960)
                      assert.ok(await nav.getByRole('link', { name: 'GET /api/changelog' }).isVisible());
                    else {
                      await nav.getByText('On this page').click();
                      assert.ok(
                        await nav.getByRole('link', { name: 'GET /api/changelog' }).isVisible(),
                        'the menu opens',
                      );
                    }
                  }
                  if (axe) assert.deepEqual(await axeViolations(page, { javaScript, dark }), []);
                  await closeClean(page);
                });
              }
            }
          }
        }
      }
    },
    { concurrency: 2 },
  );
}
