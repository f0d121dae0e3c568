// @ts-check
// tuf-js's own Updater, unmodified, as a client of the signed editions: the tests run it in a child
// process where the clock must be another (faketime), and in process through the same function.
//   node test/helpers/tuf-updater.mjs <metadata dir> <metadata url> <targets url> <api key> [target]
// Prints "ok <bytes>" (the target's length, when one is named) or "refused <error name>: <message>".
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { BaseFetcher, Updater } from 'tuf-js';

// the Updater reads a 404 as "no newer root" only from its own error type, which its index does not export
const { DownloadHTTPError } = createRequire(import.meta.url)('tuf-js/dist/error.js');

/** The Updater's fetcher with the key the targets need (metadata needs none). */
class KeyedFetcher extends BaseFetcher {
  /** @param {string} key */
  constructor(key) {
    super();
    this.key = key;
  }
  /** @param {string} url */
  async fetch(url) {
    const res = await fetch(url, { headers: { 'x-api-key': this.key, 'accept-encoding': 'identity' } });
    if (!res.ok || !res.body) throw new DownloadHTTPError(`${url}: ${res.status}`, res.status);
    return res.body;
  }
}

/**
 * Refreshes from `metadataDir` (holding the trusted root.json) and downloads `target` when named.
 * @param {{ metadataDir: string, metadataUrl: string, targetsUrl: string, key: string, target?: string }} o
 * @returns {Promise<Buffer>} the target's bytes (empty when none is named)
 */
export async function updaterFetch(o) {
  const updater = new Updater({
    metadataDir: o.metadataDir,
    metadataBaseUrl: o.metadataUrl,
    targetBaseUrl: o.targetsUrl,
    targetDir: o.metadataDir,
    fetcher: new KeyedFetcher(o.key),
  });
  await updater.refresh();
  if (!o.target) return Buffer.alloc(0);
  const info = await updater.getTargetInfo(o.target);
  if (!info) throw new Error(`${o.target} is not a target`);
  return readFileSync(await updater.downloadTarget(info));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [metadataDir = '', metadataUrl = '', targetsUrl = '', key = '', target] = process.argv.slice(2);
  try {
    const body = await updaterFetch({ metadataDir, metadataUrl, targetsUrl, key, target });
    console.log(`ok ${body.length}`);
  } catch (err) {
    console.log(`refused ${/** @type {Error} */ (err).name}: ${/** @type {Error} */ (err).message}`);
  }
}
