// The layout's rules that a reader relies on (README, How it fits together): the gateway knows the build only through
// build/site-format.ts, that file depends on nothing but the parts it re-exports, only gateway/server.ts touches
// node:http, the gateway holds no mutable state at module scope, and no source file outside test/ grows past 300
// lines.
// (server-proxy.ts is the server's too: the UPSTREAM_URL mode's http-proxy wiring.)
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { TYPES_DIR } from '../build/pack/package-layout.ts';
import { ROUTE_NAMES, ROUTES } from '../build/site-format.ts';

const root = resolve(import.meta.dirname, '..');
const SITE_FORMAT = 'build/site-format.ts';

function sources(dir: string, ends = ['.ts']): string[] {
  return (
    readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
      .filter((e) => e.isFile() && ends.some((end) => e.name.endsWith(end)))
      .map((e) => relative(root, join(e.parentPath, e.name)))
      // the client package's declarations are the compiler's output, not a source (build/pack/package-layout.ts)
      .filter((file) => !file.startsWith(`${TYPES_DIR}/`))
      .sort()
  );
}

/** Every module a file names: static imports and re-exports, and dynamic import() of a literal. */
function importsOf(file: string): { spec: string; dynamic: boolean }[] {
  const text = readFileSync(join(root, file), 'utf8');
  const found: { spec: string; dynamic: boolean }[] = [];
  for (const m of text.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+'([^']+)'/gm))
    found.push({ spec: m[1]!, dynamic: false });
  for (const m of text.matchAll(/^\s*import\s+'([^']+)'/gm)) found.push({ spec: m[1]!, dynamic: false });
  for (const m of text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)) found.push({ spec: m[1]!, dynamic: true });
  return found;
}

const resolveSpec = (file: string, spec: string) =>
  spec.startsWith('.') ? relative(root, resolve(root, dirname(file), spec)) : spec;

describe('layout', () => {
  it('finds the imports it checks (the walker itself works)', () => {
    const routes = importsOf('gateway/routes.ts').map((i) => resolveSpec('gateway/routes.ts', i.spec));
    assert.ok(routes.includes(SITE_FORMAT), routes.join(', '));
    const lazy = importsOf('gateway/store/open.ts').filter((i) => i.dynamic);
    assert.ok(lazy.length > 0, 'the store opener loads the Redis store lazily');
  });

  it('the embedded store never loads Redis: its store is reached only by the opener, lazily', () => {
    const REDIS_DIR = 'gateway/store/redis/';
    const lazy = importsOf('gateway/store/open.ts')
      .filter((i) => i.dynamic)
      .map((i) => resolveSpec('gateway/store/open.ts', i.spec));
    assert.deepEqual(lazy, [`${REDIS_DIR}redis-store.ts`]);
    // every module the gateway's entries load at start, static imports followed through gateway/
    const loaded = new Set<string>();
    const walk = (file: string) => {
      if (loaded.has(file)) return;
      loaded.add(file);
      for (const { spec, dynamic } of importsOf(file)) {
        const target = resolveSpec(file, spec);
        if (!dynamic && target.startsWith('gateway/')) walk(target);
        else if (!dynamic) loaded.add(target);
      }
    };
    for (const entry of ['gateway/index.ts', 'gateway/startup.ts']) walk(entry);
    assert.ok(loaded.has('gateway/store/open.ts') && loaded.has('gateway/store/sqlite/sqlite-store.ts'));
    assert.deepEqual(
      [...loaded].filter((file) => file.startsWith(REDIS_DIR) || file === 'ioredis'),
      [],
    );
  });

  it('the gateway imports nothing from build/ but the site format', () => {
    const offending: string[] = [];
    for (const file of sources('gateway')) {
      for (const { spec, dynamic } of importsOf(file)) {
        const target = resolveSpec(file, spec);
        // the gateway never builds (npm start does, scripts/start.mjs): no exception, not even a lazy one
        if (!target.startsWith('build/') || target === SITE_FORMAT) continue;
        offending.push(`${file} → ${target}${dynamic ? ' (dynamic)' : ''}`);
      }
    }
    assert.deepEqual(offending, []);
  });

  it('the site format depends on nothing but the parts it re-exports, which depend on nothing', () => {
    // a part re-exported may also be imported, for the site format's own use of it
    const parts = [...new Set(importsOf(SITE_FORMAT).map(({ spec }) => resolveSpec(SITE_FORMAT, spec)))];
    assert.deepEqual(parts, [
      'build/error-codes.ts',
      'build/page-slots.ts',
      'build/service-figures.ts',
      'build/tuf-paths.ts',
    ]);
    const text = readFileSync(join(root, SITE_FORMAT), 'utf8');
    for (const part of parts) {
      assert.ok(text.includes(`export * from './${part.slice('build/'.length)}';`), `${part} is re-exported whole`);
      assert.deepEqual(importsOf(part), [], part);
    }
  });

  it('only the server (server.ts and its upstream proxy) touches node:http', () => {
    const users = [...sources('gateway'), ...sources('build')].filter((file) =>
      importsOf(file).some((i) => ['node:http', 'node:https', 'http', 'https', 'http-proxy'].includes(i.spec)),
    );
    assert.deepEqual(users, ['gateway/server-proxy.ts', 'gateway/server.ts']);
  });

  it('no route path is written outside the route table (site-format.ts), but in comments', () => {
    // a string literal that starts with a row's path (its fixed part): the home page's "/" is every path's start
    const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    const fixed = ROUTE_NAMES.map((name) => ROUTES[name].path.split(/[{*]/)[0]!).filter((p) => p !== '/');
    const literal = new RegExp(`['"\`](?:${fixed.map(escapeRegExp).join('|')})(?=['"\`?/$]|[a-z]*\\.)`);
    assert.ok(literal.test("'/api/grains'") && literal.test('`/client/grade.js`') && !literal.test("'/apis'"));
    const found = ['build', 'gateway', 'scripts']
      .flatMap((dir) => sources(dir, ['.ts', '.js', '.mjs']))
      .filter((file) => file !== SITE_FORMAT)
      .flatMap((file) =>
        readFileSync(join(root, file), 'utf8')
          .split('\n')
          .map((line, i) => ({ where: `${file}:${i + 1}`, line: line.trim() }))
          .filter(({ line }) => !/^(\/\/|\*|\/\*)/.test(line) && literal.test(line))
          .map(({ where, line }) => `${where}: ${line}`),
      );
    assert.deepEqual(found, []);
  });

  it('the gateway keeps no mutable state at module scope: caches belong to the objects that own them', () => {
    // top-level `let`, and a top-level Map, Set, WeakMap or cache not typed read-only (ReadonlyMap, ReadonlySet)
    const typed = String.raw`(?::(?!\s*Readonly)[^=]+)?`;
    const collection = String.raw`(?:const|var)\s+\w+\s*${typed}=\s*new\s+(?:Map|Set|WeakMap|WeakSet|LRUCache)\b`;
    const mutable = new RegExp(String.raw`^(?:export\s+)?(?:let\s|${collection})`);
    assert.ok(mutable.test('let x = 1;') && mutable.test('const cache = new Map<string, Buffer>();'));
    assert.ok(
      mutable.test('export const seen: Set<string> = new Set();') && mutable.test('const c = new LRUCache({})'),
    );
    assert.ok(!mutable.test('const KEYS: ReadonlySet<string> = new Set([]);') && !mutable.test('  let local = 0;'));
    const found = sources('gateway').flatMap((file) =>
      readFileSync(join(root, file), 'utf8')
        .split('\n')
        .flatMap((line, i) => (mutable.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    );
    assert.deepEqual(found, []);
  });

  it('no source file outside test/ is over 300 lines', () => {
    const long = ['build', 'gateway', 'scripts']
      .flatMap((dir) => sources(dir))
      .map((file) => ({ file, lines: readFileSync(join(root, file), 'utf8').split('\n').length - 1 }))
      .filter((f) => f.lines > 300);
    assert.deepEqual(long, []);
  });
});

/**
 * Which folders of build/ each folder may import, besides its own files and build/'s root files: the
 * stages as data flows through them; the grading core (grading/), which the build and the package
 * both import and which imports none; and the client package (client/), which imports only the
 * grading core, so that neither the build nor the package reaches back. A new folder needs a row.
 */
const MAY_IMPORT: Record<string, readonly string[]> = {
  grading: [],
  client: ['grading'],
  schema: ['grading'],
  load: [],
  validate: ['grading', 'load', 'schema'],
  compile: ['load', 'schema', 'validate'],
  emit: [],
  publish: ['emit'],
  changelog: ['compile', 'load', 'publish', 'validate'],
  pack: ['client', 'grading', 'schema'],
  pages: ['changelog', 'compile', 'grading', 'load', 'pack', 'validate'],
  import: ['grading', 'load', 'validate'],
  tuf: [],
};
/** The folders whose code ships to the user (the package, the public modules): no build tool goes in. */
const SHIPPED = ['client', 'grading'];
/** build/'s root files what ships may import: the contract with the service and the parts the package shares. */
const PACKAGE_MAY_IMPORT = [
  'atomic-write.mjs',
  'cli-args.ts',
  'grain-summary.ts',
  'plain-body.ts',
  'site-format.ts',
  'types.ts',
];
/** The package: only its packing (pack/) and the commands (scripts/) may import it. */
const PACKAGE_OWN = ['build/client/'];

const folderOf = (file: string) => (file.split('/').length > 2 ? file.split('/')[1]! : null);

describe('which folders import which', () => {
  it('the table itself has no circle, and names every folder of build/', () => {
    /** The folders the table lets `folder` reach, through any number of rows. */
    const reached = (folder: string, seen = new Set<string>()): Set<string> => {
      for (const next of MAY_IMPORT[folder]!) if (!seen.has(next)) reached(next, seen.add(next));
      return seen;
    };
    assert.deepEqual(
      Object.keys(MAY_IMPORT).filter((f) => reached(f).has(f)),
      [],
    );
    const folders = new Set(sources('build', ['.ts', '.mjs']).flatMap((f) => folderOf(f) ?? []));
    assert.deepEqual([...folders].sort(), Object.keys(MAY_IMPORT).sort());
  });

  it("each folder of build/ imports only the folders its row names; what ships, only build/'s shared files", () => {
    const offending = sources('build', ['.ts', '.mjs']).flatMap((file) => {
      const from = folderOf(file);
      if (from === null) return [];
      return importsOf(file).flatMap(({ spec }) => {
        const target = resolveSpec(file, spec);
        if (!target.startsWith('build/')) return [];
        const to = folderOf(target);
        if (to === from) return [];
        const allowed =
          to === null
            ? !SHIPPED.includes(from) || PACKAGE_MAY_IMPORT.includes(target.slice('build/'.length))
            : MAY_IMPORT[from]!.includes(to);
        return allowed ? [] : [`${file} → ${target}`];
      });
    });
    assert.deepEqual(offending, []);
  });

  it('nothing in build/ or gateway/ imports the package but its packing', () => {
    const offending = [...sources('build', ['.ts', '.mjs']), ...sources('gateway')].flatMap((file) =>
      file.startsWith('build/client/') || file.startsWith('build/pack/')
        ? []
        : importsOf(file)
            .map(({ spec }) => resolveSpec(file, spec))
            .filter((target) => PACKAGE_OWN.some((own) => target.startsWith(own)))
            .map((target) => `${file} → ${target}`),
    );
    assert.deepEqual(offending, []);
  });
});
