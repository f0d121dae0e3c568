// Debian's Chromium for the browser suites, driven by playwright-core (no browser download). In CI
// it must be there (.ci/run installs it); elsewhere a suite without it is skipped, saying why.
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';

export const chromiumSkip: string | false =
  existsSync(CHROMIUM) || process.env.CI ? false : 'no /usr/bin/chromium (apt-get install chromium)';

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
