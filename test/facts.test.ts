// Every fact once: the schema version, the key prefix, the JSON content type, the auth realm and the
// rate-limit window are written in build/site-format.ts, and build/, gateway/ and scripts/ take them
// from there. Tests may keep literals: they hold the code to the contract as the docs write it.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { TYPES_DIR } from '../build/client/package/layout.ts';
import {
  AUTH_CHALLENGE,
  JSON_CONTENT_TYPE,
  KEY_PREFIX,
  RATE_LIMIT_WINDOW_SECONDS,
  rateLimitPolicy,
  SCHEMA_VERSION,
} from '../build/site-format.ts';

const root = resolve(import.meta.dirname, '..');
const SITE_FORMAT = 'build/site-format.ts';
/** site-format.ts and the parts it re-exports whole (service-figures.ts, …): the one place of each fact. */
const OWNERS = new Set([
  SITE_FORMAT,
  ...[...readFileSync(join(root, SITE_FORMAT), 'utf8').matchAll(/^export \* from '\.\/([^']+)';$/gm)].map(
    (m) => `build/${m[1]}`,
  ),
]);

/** Each fact, its value as site-format.ts gives it, and how a copy of it would be written. */
const FACTS: [fact: string, value: string, written: RegExp][] = [
  ['the schema version', `'${SCHEMA_VERSION}'`, /['"`]1\.0['"`]/],
  ['the key prefix', KEY_PREFIX, /ggt_/],
  ['the JSON content type', JSON_CONTENT_TYPE, /application\/json; ?charset=utf-8/i],
  ['the auth realm', AUTH_CHALLENGE, /realm=/],
  ['the rate-limit window', rateLimitPolicy(100), new RegExp(`w=${RATE_LIMIT_WINDOW_SECONDS}\\b`)],
];

function sources(dir: string): string[] {
  return (
    readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
      .filter((e) => e.isFile() && /\.(ts|js|mjs)$/.test(e.name))
      .map((e) => relative(root, join(e.parentPath, e.name)))
      // the client package's declarations are the compiler's output, not a source (build/client/package/layout.ts)
      .filter((file) => !file.startsWith(`${TYPES_DIR}/`))
  );
}

describe('every fact once', () => {
  it('the patterns find each fact as it would be written', () => {
    for (const [fact, value, written] of FACTS) assert.match(value, written, fact);
  });

  it('no second copy of them in build/, gateway/ or scripts/', () => {
    const found: string[] = [];
    for (const file of ['build', 'gateway', 'scripts'].flatMap(sources)) {
      if (OWNERS.has(file)) continue;
      readFileSync(join(root, file), 'utf8')
        .split('\n')
        .forEach((line, i) => {
          for (const [fact, , written] of FACTS) if (written.test(line)) found.push(`${file}:${i + 1} ${fact}`);
        });
    }
    assert.deepEqual(found, []);
  });
});
