// tier: full (Chromium)
// The front door and /grade in a real browser, in one process: the suites run one after another,
// since Chromium instances side by side on 2 cores slow each other more than they save
// (test/helpers/front-door-browser.ts, test/helpers/grade-page-browser.ts, test/helpers/tables-browser.ts).
import { frontDoorInABrowser } from './helpers/front-door-browser.ts';
import { gradePageInABrowser } from './helpers/grade-page-browser.ts';
import { tablesInABrowser } from './helpers/tables-browser.ts';

frontDoorInABrowser('pages');
frontDoorInABrowser('screens');
gradePageInABrowser();
tablesInABrowser();
