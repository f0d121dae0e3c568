// Every fact once: the schema version, the key prefix, the JSON content type, the auth realm and the
// rate-limit window are written in build/site-format.ts, and build/, gateway/ and scripts/ take them
// from there; so are the shapes with one owner (a key's crop-year query, the rate-limit header
// names, the grain id's pattern). Tests may keep literals: they hold the code to the contract as the docs
// write it.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { TYPES_DIR } from '../build/pack/package-layout.ts';
import {
  AUTH_CHALLENGE,
  GRAIN_ID_PATTERN,
  grainYearKey,
  JSON_CONTENT_TYPE,
  KEY_PREFIX,
  RATE_LIMIT_HEADERS,
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

/**
 * Shapes with one owner (site-format.ts and its parts), each with a value as the owner gives it and
 * how a second copy would be written in code (comments may name them): the crop-year query of a key
 * (keyOfYear writes it, yearOfKey reads it), the rate-limit headers' names, the grain id's pattern.
 */
const SHAPES: [shape: string, value: string, written: RegExp][] = [
  ['the crop-year query of a key', grainYearKey('CWRS', '2025/26'), /crop_year=/],
  ['a rate-limit header name', RATE_LIMIT_HEADERS.remaining, /x-ratelimit-|ratelimit-policy/i],
  ['the grain-id pattern', GRAIN_ID_PATTERN, /A-Z0-9_/],
];
const COMMENT = /^\s*(\/\/|\*|\/\*)/;

function sources(dir: string): string[] {
  return (
    readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
      .filter((e) => e.isFile() && /\.(ts|js|mjs)$/.test(e.name))
      .map((e) => relative(root, join(e.parentPath, e.name)))
      // the client package's declarations are the compiler's output, not a source (build/pack/package-layout.ts)
      .filter((file) => !file.startsWith(`${TYPES_DIR}/`))
  );
}

/** Where a pattern of `table` matches a line outside the owners (`code`: not in comments), as `file:line what`. */
function copies(table: [what: string, value: string, written: RegExp][], code: boolean): string[] {
  const found: string[] = [];
  for (const file of ['build', 'gateway', 'scripts'].flatMap(sources)) {
    if (OWNERS.has(file)) continue;
    readFileSync(join(root, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (code && COMMENT.test(line)) return;
        for (const [what, , written] of table) if (written.test(line)) found.push(`${file}:${i + 1} ${what}`);
      });
  }
  return found;
}

describe('every fact once', () => {
  it('the patterns find each fact as it would be written', () => {
    for (const [fact, value, written] of FACTS) assert.match(value, written, fact);
  });

  it('no second copy of them in build/, gateway/ or scripts/', () => {
    assert.deepEqual(copies(FACTS, false), []);
  });
});

describe('every shape one owner', () => {
  it('the patterns find each shape as its owner writes it', () => {
    for (const [shape, value, written] of SHAPES) assert.match(value, written, shape);
  });

  it('no second copy of them in the code of build/, gateway/ or scripts/', () => {
    assert.deepEqual(copies(SHAPES, true), []);
  });
});
