// The front door in a real browser: its pages, the keyboard, and /grade against npm run grade
// (test/helpers/front-door-browser.ts; every page screen by screen is test/browser-screens.test.ts).
import { frontDoorInABrowser } from './helpers/front-door-browser.ts';

frontDoorInABrowser('pages');
