// tier: full (npm test's runner)
// npm test's runner (scripts/test.mjs), run as npm test runs it on a file of its own: node's TAP
// report stays whole (CI reads `# pass N` and `# fail N`), the last line says how many tests were
// skipped and why, and the exit code is the runner's.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { bundleTests } from '../scripts/test-bundle.mjs';
import { quickTier } from '../scripts/test-tiers.mjs';
import { keepTimes, longestFirst } from '../scripts/test-times.mjs';
import { tempDir } from './helpers/dataset.ts';
import { root } from './helpers/gateway.ts';

const run = (source: string) => {
  const dir = tempDir('test-runner');
  const file = join(dir, 'sample.test.mjs');
  // a helper that skips a whole suite, as test/helpers/suite.ts does: its test is named, not its file
  mkdirSync(join(dir, 'helpers'));
  writeFileSync(
    join(dir, 'helpers', 'suite.mjs'),
    "import { it } from 'node:test';\n" +
      "export const skipAll = (name, skip) => it('all of ' + name, { skip }, () => {});\n",
  );
  writeFileSync(
    file,
    `import { describe, it } from 'node:test';\nimport { skipAll } from './helpers/suite.mjs';\n${source}`,
  );
  // without this, the inner runner would report to this one instead of printing its own report
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  return spawnSync(process.execPath, ['scripts/test.mjs', file], { cwd: root, env, encoding: 'utf8' });
};

it('ends with the skipped tests grouped by reason, after node’s own summary, and exits as the tests did', () => {
  const r = run(`
it('passes', () => {});
it('fails', () => { throw new Error('no'); });
it('needs pages', { skip: 'no saved pages here' }, () => {});
describe('redis', () => it('needs redis', { skip: 'no Redis here' }, () => {}));
it('also needs pages', { skip: 'no saved pages here' }, () => {});
skipAll('redis suite', 'no Redis here');`);
  assert.equal(r.status, 1, r.stderr);
  const lines = r.stdout.trim().split('\n');
  for (const summary of ['# pass 1', '# fail 1', '# skipped 4']) assert.ok(lines.includes(summary), summary);
  assert.equal(
    lines.at(-1),
    'skipped tests: 4: 2 × "no saved pages here" (sample.test.mjs); ' +
      '2 × "no Redis here" (sample.test.mjs, all of redis suite) ' +
      '(what each needs and where to get it: docs/operations.md, CI)',
  );
});

it('says none were skipped, and exits 0 when every test passed', () => {
  const r = run(`it('passes', () => {});`);
  assert.equal(r.status, 0, r.stderr);
  assert.ok(r.stdout.includes('# pass 1\n'));
  assert.equal(r.stdout.trim().split('\n').at(-1), 'skipped tests: none');
});

it('the quick tier is every test file but those marked full in their header', () => {
  const dir = tempDir('tiers');
  writeFileSync(join(dir, 'plain.test.ts'), '// a suite in process\n');
  writeFileSync(join(dir, 'marked.test.ts'), '// what it covers\n// tier: full (a gateway process)\n');
  // a marker below the header (a test's own text) does not count
  writeFileSync(join(dir, 'deep.test.ts'), `${'//\n'.repeat(12)}// tier: full\n`);
  writeFileSync(join(dir, 'helper.ts'), '// not a test file\n');
  assert.deepEqual(quickTier(dir), [join(dir, 'deep.test.ts'), join(dir, 'plain.test.ts')]);
  const ours = quickTier(join(root, 'test')).map((file) => basename(file));
  assert.ok(ours.includes('fuzz.test.ts') && ours.includes('gateway-contract.test.ts'), ours.join(', '));
  for (const full of ['browser.test.ts', 'test-runner.test.ts', 'cdn.test.ts']) assert.ok(!ours.includes(full), full);
});

it('in the quick tier, a test file that starts a child process fails, saying to mark it', () => {
  const guard = join(root, 'scripts/test-quick-guard.mjs');
  const source = "import { spawnSync } from 'node:child_process'; console.log(spawnSync('true').status);";
  const args = ['--import', guard, '--input-type=module', '-e', source];
  const inTestFile = spawnSync(process.execPath, args, { env: { ...process.env, NODE_TEST_CONTEXT: 'child' } });
  assert.equal(inTestFile.status, 1);
  assert.match(
    String(inTestFile.stderr),
    /npm run test:quick runs no child process \(spawnSync\): mark this test file/,
  );
  // the runner itself (no NODE_TEST_CONTEXT) starts its files as child processes
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const inRunner = spawnSync(process.execPath, args, { env, encoding: 'utf8' });
  assert.equal(inRunner.status, 0, inRunner.stderr);
  assert.equal(inRunner.stdout, '0\n');
  // and says so, for what would start one to skip instead (test/helpers/redis.ts)
  const tier = ['--import', guard, '-p', "process.env.TEST_TIER ?? 'npm test'"];
  const { TEST_TIER: __, ...untiered } = env;
  for (const [context, said] of [
    [{ NODE_TEST_CONTEXT: 'child' }, 'quick\n'],
    [{}, 'npm test\n'],
  ] as const)
    assert.equal(
      spawnSync(process.execPath, tier, { env: { ...untiered, ...context }, encoding: 'utf8' }).stdout,
      said,
    );
});

it('starts the longest file first by the times kept, a file with none before all, and keeps a run’s times', () => {
  const dir = tempDir('test-times');
  const record = join(dir, 'cache', 'times.json'); // a folder a fresh checkout does not have yet
  const files = ['a', 'b', 'c', 'new'].map((name) => ({ path: `/x/${name}.test.ts`, name }));
  const order = () => longestFirst(files, record).map((f) => f.name);
  assert.deepEqual(order(), ['a', 'b', 'c', 'new'], 'no record: name order');
  keepTimes('', record, () => 'a');
  assert.deepEqual(order(), ['a', 'b', 'c', 'new'], 'a run with no times keeps none');
  mkdirSync(join(dir, 'cache'));
  writeFileSync(record, '{ not json');
  assert.deepEqual(order(), ['a', 'b', 'c', 'new'], 'a record that cannot be read is none');
  writeFileSync(record, JSON.stringify({ a: 10, b: 300, c: 20, gone: 999 }));
  assert.deepEqual(order(), ['new', 'b', 'c', 'a']);
  const lines = [
    { file: '/run/b.js', ms: 5 },
    { file: '/run/c.js', ms: 400 },
    { file: '/elsewhere/sample.js', ms: 1 },
  ].map((l) => `${JSON.stringify(l)}\n`);
  const names = new Map([
    ['/run/b.js', 'b'],
    ['/run/c.js', 'c'],
  ]);
  keepTimes(lines.join(''), record, (file) => names.get(file));
  assert.deepEqual(JSON.parse(readFileSync(record, 'utf8')), { a: 10, b: 5, c: 400, gone: 999 });
  assert.deepEqual(order(), ['new', 'c', 'a', 'b']);
  rmSync(join(dir, 'cache'), { recursive: true });
  keepTimes(lines.join(''), record, (file) => names.get(file));
  assert.deepEqual(JSON.parse(readFileSync(record, 'utf8')), { b: 5, c: 400 }, 'its folder made first');
});

it('bundles a test file whose modules keep where they were, and refuses what it cannot keep', async () => {
  const dir = tempDir('test-bundle');
  mkdirSync(join(dir, 'deep'));
  // the property's name put together here: this file is bundled the same way, and its own text would be a match
  const meta = ['import', 'meta'].join('.');
  writeFileSync(
    join(dir, 'deep', 'where.ts'),
    `export const where: string[] = [${meta}.dirname, ${meta}.filename, ${meta}.url];\n`,
  );
  writeFileSync(
    join(dir, 'one.test.ts'),
    "import { where } from './deep/where.ts';\nconsole.log(JSON.stringify(where));\n",
  );
  const out = join(dir, 'out');
  const bundles = await bundleTests([join(dir, 'one.test.ts')], out);
  const bundle = bundles.get(join(dir, 'one.test.ts'))!;
  assert.equal(bundle, join(out, 'one.test.js'));
  const ran = spawnSync(process.execPath, [bundle], { encoding: 'utf8' });
  const where = join(dir, 'deep', 'where.ts');
  assert.deepEqual(JSON.parse(ran.stdout), [join(dir, 'deep'), where, pathToFileURL(where).href], ran.stderr);
  writeFileSync(join(dir, 'two.test.ts'), `console.log(${meta}.resolve('./x.js'));\n`);
  await assert.rejects(bundleTests([join(dir, 'two.test.ts')], out), (err: { errors: { text: string }[] }) =>
    err.errors.some((e) => /other than \.url, \.dirname or \.filename cannot be bundled/.test(e.text)),
  );
});
