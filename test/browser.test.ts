// tier: full (Chromium)
// Every browser suite in one process, against one Chromium and one gateway (browserStage in
// test/helpers/chromium.ts): the front door page by page and screen by screen, /grade, the tables,
// a page on another origin (test/helpers/*-browser.ts). Two suites run at a time, and the front
// door's two tests at a time: the work is mostly Chromium's (axe, layout), a renderer process per
// context, and a test spends much of its time waiting for one, so a few side by side keep both
// cores busy.
import { after } from 'node:test';
import { axeFindsViolations } from './helpers/axe-browser.ts';
import { browserStage, chromiumSkip } from './helpers/chromium.ts';
import { frontDoorInABrowser } from './helpers/front-door-browser.ts';
import { gradePageInABrowser } from './helpers/grade-page-browser.ts';
import { otherOriginsInABrowser } from './helpers/other-origins-browser.ts';
import { suite } from './helpers/suite.ts';
import { tablesInABrowser } from './helpers/tables-browser.ts';

const started = Date.now();
after(() => console.log(`browser tests: ${((Date.now() - started) / 1000).toFixed(1)} s`));

suite(
  'in a browser',
  chromiumSkip,
  () => {
    const stage = browserStage();
    axeFindsViolations(stage);
    frontDoorInABrowser(stage, 'screens');
    frontDoorInABrowser(stage, 'pages');
    gradePageInABrowser(stage);
    tablesInABrowser(stage);
    otherOriginsInABrowser(stage);
  },
  { concurrency: 2 },
);
