// Debian's Chromium for the browser suites, driven by playwright-core (no browser download): its
// headless shell (package chromium-headless-shell), Blink and V8 without the desktop browser around
// them, which is what playwright itself launches for headless runs. A page there costs a fraction
// of the CPU the full browser spends on it (docs/performance.md, The test suite's time). In CI it
// must be there (.ci/run installs it); elsewhere a suite without it is skipped, saying why.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before } from 'node:test';
import { type Browser, chromium, type Page } from 'playwright-core';
import { startTestGateway, type TestGateway } from './gateway.ts';

const CHROMIUM = '/usr/bin/chromium-headless-shell';

export const chromiumSkip: string | false =
  existsSync(CHROMIUM) || process.env.CI ? false : `no ${CHROMIUM} (apt-get install chromium-headless-shell)`;

/** A headless Chromium with nothing of its own on the network: only the pages under test load. */
export const launchChromium = () =>
  chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });

/** What the browser suites run against: one Chromium and one gateway, there from `before` to `after`. */
export interface BrowserStage {
  readonly browser: Browser;
  readonly t: TestGateway;
}

/**
 * One Chromium and one gateway for every suite in the describe that calls this (its before and
 * after). A test opens a context of its own (a fresh profile: no cookie, storage or cache of
 * another test), so sharing the browser shares nothing a test could see, and the launch and the
 * gateway's start are paid once. Registration is allowed often enough for every suite's addresses.
 */
export function browserStage(): BrowserStage {
  let browser: Browser | undefined;
  let t: TestGateway | undefined;
  before(async () => {
    // each kept as it comes, so that `after` closes the one that started when the other did not
    const started = await Promise.allSettled([
      startTestGateway({ REGISTER_LIMIT_PER_HOUR: '1000' }).then((gateway) => (t = gateway)),
      launchChromium().then((launched) => (browser = launched)),
    ]);
    for (const result of started) if (result.status === 'rejected') throw result.reason;
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });
  return {
    get browser() {
      assert.ok(browser, 'the stage is set (before)');
      return browser;
    },
    get t() {
      assert.ok(t, 'the stage is set (before)');
      return t;
    },
  };
}

/**
 * Text typed into the focused field from the keyboard: its last character a real key press (the
 * field takes keys), the rest entered at once, as an input method or a paste enters it. The pages
 * read a field's value, never its keys, and a key event per character costs seconds when Chromium
 * is busy with another page.
 */
export async function typeIn(page: Page, text: string): Promise<void> {
  await page.keyboard.insertText(text.slice(0, -1));
  await page.keyboard.type(text.slice(-1));
}
