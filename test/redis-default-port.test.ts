// Tests and benches keep to Redis servers of their own, each on a free port (test/helpers/redis.ts,
// scripts/bench/own-redis.ts): no file under test/ or scripts/, nor .ci/run, names Redis's default
// port, where a server that is not the tests' may answer with a developer's own data.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { root } from './helpers/gateway.ts';

/** Written so that this file does not name it. */
const DEFAULT_PORT = String(6300 + 79);
const names = (text: string) => new RegExp(`(?<![0-9])${DEFAULT_PORT}(?![0-9])`).test(text);

/** Every file under `dir` (relative to the root), but the runs' bundles and what git ignores there. */
function filesUnder(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(root.length))
    .filter((f) => !/(^|\/)\.bundles\//.test(f));
}

describe("Redis's default port", () => {
  it('is told from the ports around it', () => {
    const cases: [string, boolean][] = [
      [`redis://127.0.0.1:${DEFAULT_PORT}`, true],
      [`--port ${DEFAULT_PORT} --bind`, true],
      [`/dev/tcp/127.0.0.1/${DEFAULT_PORT})`, true],
      [`reachable(${DEFAULT_PORT})`, true],
      [`b:2${DEFAULT_PORT}`, false], // Sentinel's
      [`${DEFAULT_PORT}0`, false],
      ['redis://a:6380', false],
    ];
    for (const [text, named] of cases) assert.equal(names(text), named, text);
  });

  it('is named nowhere in test/, scripts/ or .ci/run', () => {
    const files = [...filesUnder('test'), ...filesUnder('scripts'), '.ci/run'];
    assert.ok(files.includes('test/helpers/redis.ts') && files.includes('scripts/bench/own-redis.ts'), 'walked');
    const naming = files.filter((f) => names(readFileSync(join(root, f), 'latin1')));
    assert.deepEqual(naming, [], 'start a redis-server of its own on a free port instead (test/helpers/redis.ts)');
  });
});
