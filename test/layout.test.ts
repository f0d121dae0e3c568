// The layout's rules that a reader relies on (README, How it fits together): the gateway knows the build only through
// build/site-format.ts, that file depends on nothing, only gateway/server.ts touches node:http, and
// no source file outside test/ grows past 300 lines.
// (server-proxy.ts is the server's too: the UPSTREAM_URL mode's http-proxy wiring.)
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';

const root = resolve(import.meta.dirname, '..');
const SITE_FORMAT = 'build/site-format.ts';

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => relative(root, join(e.parentPath, e.name)))
    .sort();
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
    const entry = importsOf('gateway/index.ts').filter((i) => i.dynamic);
    assert.ok(entry.length > 0, 'the start-up entry loads the build lazily');
  });

  it('the gateway imports nothing from build/ but the site format', () => {
    const offending: string[] = [];
    for (const file of sources('gateway')) {
      for (const { spec, dynamic } of importsOf(file)) {
        const target = resolveSpec(file, spec);
        if (!target.startsWith('build/') || target === SITE_FORMAT) continue;
        // npm start builds a missing site: the start-up entry may load the build, lazily, and only it.
        if (dynamic && file === 'gateway/index.ts') continue;
        offending.push(`${file} → ${target}${dynamic ? ' (dynamic)' : ''}`);
      }
    }
    assert.deepEqual(offending, []);
  });

  it('the site format depends on nothing', () => {
    assert.deepEqual(importsOf(SITE_FORMAT), []);
  });

  it('only the server (server.ts and its upstream proxy) touches node:http', () => {
    const users = [...sources('gateway'), ...sources('build')].filter((file) =>
      importsOf(file).some((i) => ['node:http', 'node:https', 'http', 'https', 'http-proxy'].includes(i.spec)),
    );
    assert.deepEqual(users, ['gateway/server-proxy.ts', 'gateway/server.ts']);
  });

  it('no source file outside test/ is over 300 lines', () => {
    const long = ['build', 'gateway', 'scripts']
      .flatMap(sources)
      .map((file) => ({ file, lines: readFileSync(join(root, file), 'utf8').split('\n').length - 1 }))
      .filter((f) => f.lines > 300);
    assert.deepEqual(long, []);
  });
});
