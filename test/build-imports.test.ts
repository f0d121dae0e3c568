// tier: full (each build module imported in a child process of its own)
// No build module runs code when it is imported: importing one reads no file, compiles no schema
// and ends no process, so a caller (a test, the preview, the gateway's tests) decides when the work
// is done and with what. The package's bin (entry-bin.ts) is the exception, as are the commands in
// scripts/: running is what they are for. Every module is imported in a child process started in an empty folder with
// an empty environment, with node:fs, ajv's compile and process.exit watched: a call made from a
// build module's own code (its frame on the stack) while it is imported is named.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { TYPES_DIR } from '../build/pack/package-layout.ts';

const root = join(import.meta.dirname, '..');
const ENTRY = /entry-bin\.ts$/;

const modules = readdirSync(join(root, 'build'), { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile() && /\.(ts|mjs)$/.test(e.name))
  .map((e) => relative(root, join(e.parentPath, e.name)))
  .filter((file) => !file.startsWith(`${TYPES_DIR}/`) && !ENTRY.test(file))
  .sort();

/** The child: watch, import each module, say what was called from build/ while importing. */
const child = (files: string[], watched: string) => `
  import fs from 'node:fs';
  import { createRequire, syncBuiltinESMExports } from 'node:module';
  const require = createRequire(${JSON.stringify(join(root, 'package.json'))});
  Error.stackTraceLimit = 100;
  const seen = [];
  const fromBuild = (what) => {
    const frame = new Error().stack.split('\\n').find((l) => l.includes(${JSON.stringify(watched)}));
    if (frame) seen.push(what + ' at ' + frame.trim().replace(/^at /, ''));
  };
  const watch = (object, name, label) => {
    const real = object[name];
    if (typeof real !== 'function') return;
    object[name] = function (...args) { fromBuild(label + name); return real.apply(this, args); };
  };
  for (const name of Object.keys(fs)) watch(fs, name, 'fs.');
  for (const name of Object.keys(fs.promises)) watch(fs.promises, name, 'fs.promises.');
  const ajv = require('ajv');
  watch(ajv.Ajv.prototype, 'compile', 'ajv.');
  syncBuiltinESMExports(); // the modules' named imports of node:fs are the watched functions too
  process.exit = (code) => { fromBuild('process.exit'); throw new Error('process.exit(' + code + ') at import'); };
  for (const file of ${JSON.stringify(files)}) {
    seen.length = 0;
    try { await import(file); } catch (e) { seen.push('threw: ' + e.message); }
    if (seen.length) console.log(JSON.stringify({ file, seen: [...new Set(seen)].slice(0, 3) }));
  }
`;

/** `files` (absolute) imported one after the other; a call is named where a frame under `watched` made it. */
function importAll(files: string[], watched = `${join(root, 'build')}/`): { file: string; seen: string[] }[] {
  const cwd = mkdtempSync(join(tmpdir(), 'build-imports-'));
  const urls = files.map((f) => pathToFileURL(f).href);
  const run = spawnSync(
    process.execPath,
    ['--import', pathToFileURL(join(root, 'node_modules/tsx/dist/esm/index.mjs')).href, '--input-type=module'],
    { cwd, env: {}, input: child(urls, watched), encoding: 'utf8' },
  );
  assert.equal(run.status, 0, run.stderr);
  return run.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

describe('importing a build module', () => {
  it('reads no file, compiles no schema and exits no process', () => {
    assert.ok(modules.length > 60, `found ${modules.length} modules`);
    assert.deepEqual(importAll(modules.map((f) => join(root, f))), []);
  });

  it('the watch sees a module that reads a file at import', () => {
    // a module of this test's own making, watched as build/ is: the check above could not pass it
    const probe = mkdtempSync(join(tmpdir(), 'import-probe-'));
    const reads = join(probe, 'reads.mjs');
    const exits = join(probe, 'exits.mjs');
    try {
      writeFileSync(reads, "import { existsSync } from 'node:fs';\nexport const here = existsSync('package.json');\n");
      writeFileSync(exits, 'export const never = process.exit(3);\n');
      const found = importAll([reads, exits], `${probe}/`);
      assert.deepEqual(
        found.map((f) => [f.file, f.seen[0]!.replace(/ at .*/, '')]),
        [
          [pathToFileURL(reads).href, 'fs.existsSync'],
          [pathToFileURL(exits).href, 'process.exit'],
        ],
      );
    } finally {
      rmSync(probe, { recursive: true, force: true });
    }
  });
});

describe('the bundler, imported by the commands (scripts/bundle-node.mjs)', () => {
  it('a bundle it cannot make is an error the command says in a sentence, not an exit inside it', () => {
    // the runtime stage's files without its bundles: nothing to run, nothing to make one from
    const dir = mkdtempSync(join(tmpdir(), 'no-bundle-'));
    for (const file of [
      'package.json',
      'scripts/run.mjs',
      'scripts/bundle-node.mjs',
      'build/project-root.mjs',
      'build/atomic-write.mjs',
    ])
      cpSync(join(root, file), join(dir, file));
    const sources = 'no sources (gateway, build, scripts) to make one from';
    const sentence = `there is no bundle in ${join(dir, 'dist')} and ${sources}`;
    const caller = `import { BundleError, freshBundles } from './scripts/bundle-node.mjs';
      const err = await freshBundles().catch((e) => e);
      console.log(err instanceof BundleError ? err.message : 'no BundleError');`;
    const asLibrary = spawnSync(process.execPath, ['--input-type=module', '-e', caller], {
      cwd: dir,
      encoding: 'utf8',
    });
    assert.deepEqual([asLibrary.status, asLibrary.stdout], [0, `${sentence}\n`], 'the caller decides');
    const run = spawnSync(process.execPath, ['scripts/run.mjs', 'build'], { cwd: dir, encoding: 'utf8' });
    assert.deepEqual([run.status, run.stderr], [1, `${sentence}.\n`]);
    rmSync(dir, { recursive: true, force: true });
  });
});
