/// <reference lib="dom" />
// axe-core on the pages under test, as every browser suite runs it: every rule axe enables by
// default (best practices included), only the violations gathered. And a test that it still finds
// violations where a page has them, with JavaScript on and off, in either theme.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import type { BrowserStage } from './chromium.ts';

/**
 * axe-core's violations on the page as it is now, as `rule: the nodes' selectors`. axe runs as one
 * script in the page (axe.run): the pages have no frames (asserted), and for a page without frames
 * the builder's default, a partial run per frame finished in a second, blank page, gives the same
 * answer at about twice the cost. A page with JavaScript off cannot run a script: its DOM is then
 * checked in a page of the same origin, size and theme with scripts on but every script of the
 * site refused, so the DOM stays the one a visitor without JavaScript gets.
 */
export async function axeViolations(
  page: Page,
  { javaScript = true, dark = false }: { javaScript?: boolean; dark?: boolean } = {},
): Promise<string[]> {
  let target = page;
  if (!javaScript) {
    const html = await page.content();
    const origin = new URL(page.url()).origin;
    const context = await page
      .context()
      .browser()!
      .newContext({
        viewport: page.viewportSize()!,
        colorScheme: dark ? 'dark' : 'light',
      });
    await context.route(
      (url) => url.pathname.endsWith('.js'),
      (r) => r.abort(),
    );
    await context.route(`${origin}/__snapshot`, (r) => r.fulfill({ body: html, contentType: 'text/html' }));
    target = await context.newPage();
    await target.goto(`${origin}/__snapshot`);
  }
  assert.equal(target.frames().length, 1, 'a page without frames: axe.run sees all of it');
  const axe = await new AxeBuilder({ page: target })
    .setLegacyMode()
    .options({ resultTypes: ['violations'] })
    .analyze();
  if (target !== page) await target.context().close();
  return axe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(' ')}`);
}

/** A page with an image without words, and words too faint to read in the dark theme only. */
const FLAWED = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Flawed</title>
<style>@media (prefers-color-scheme: dark) { body { background: #222; color: #eee; } .faint { color: #333; } }</style>
</head><body><main><h1>Flawed</h1><p class="faint">Words</p><img src="/icon.svg"></main></body></html>`;

/** axeViolations can fail: it finds a page's violations, with JavaScript on and off, in the theme asked. */
export function axeFindsViolations(stage: BrowserStage) {
  it('axe, as the suites run it, finds the violations a page has (JavaScript on and off, light and dark)', async () => {
    for (const javaScript of [true, false]) {
      for (const dark of [false, true]) {
        const context = await stage.browser.newContext({
          javaScriptEnabled: javaScript,
          colorScheme: dark ? 'dark' : 'light',
        });
        await context.route(`${stage.t.url}/__flawed`, (r) => r.fulfill({ body: FLAWED, contentType: 'text/html' }));
        const page = await context.newPage();
        await page.goto(`${stage.t.url}/__flawed`);
        const found = await axeViolations(page, { javaScript, dark });
        assert.deepEqual(
          found.map((v) => v.split(':')[0]),
          [...(dark ? ['color-contrast'] : []), 'image-alt'],
          `JavaScript ${javaScript ? 'on' : 'off'}, ${dark ? 'dark' : 'light'}`,
        );
        await context.close();
      }
    }
  });
}
