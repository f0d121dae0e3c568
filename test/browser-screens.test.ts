// The front door in a real browser, screen by screen: every page at a laptop's and a phone's size,
// light and dark, with and without JavaScript (test/helpers/front-door-browser.ts).
import { frontDoorInABrowser } from './helpers/front-door-browser.ts';

frontDoorInABrowser('screens');
