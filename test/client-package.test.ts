// tier: full (npm, tsc and the packaging linters on the packed client)
// The client package grain-tables-client as a client developer meets it (docs/sync.md, The client
// package): downloaded from a running gateway with no key, installed offline into an empty folder
// (nothing else lands in its node_modules), its command syncing every class for one counted request
// and an unchanged rerun for none, a strict TypeScript consumer type-checking against it (and one
// reading a field that does not exist failing to), its grader grading, the packaging linters clean,
// and its committed declarations as the sources make them.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type * as Published from '../build/client/types/types.js';
import { CLIENT_VERSION } from '../build/client/version.ts';
import { grade } from '../build/grading/grade.ts';
import { clientDeclarations } from '../build/pack/declarations.ts';
import { clientTarball } from '../build/pack/pack.ts';
import { TYPES_DIR } from '../build/pack/package-layout.ts';
import { plainBody } from '../build/plain-body.ts';
import { BODY_TYPES, CLIENT_TARBALL, grainKey, grainYearKey, readBuild, snapshotKey } from '../build/site-format.ts';
import type * as Source from '../build/types.ts';
import { tempDir } from './helpers/dataset.ts';
import { get, realSiteDir, register, root, startTestGateway, type TestGateway } from './helpers/gateway.ts';

// The declarations the package ships are the types the service's schemas give (checked by tsc):
// each way assignable, so a field added, dropped or retyped on either side fails to compile.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameShapes: [
  Same<Published.GrainRecord, Source.GrainRecord>,
  Same<Published.GrainSummary, Source.GrainSummary>,
  Same<Published.Snapshot, Source.Snapshot>,
  Same<Published.Changelog, Source.Changelog>,
  Same<Published.ErrorBody, Source.ErrorBody>,
  Same<Published.GradeResult, Source.GradeResult>,
] = [true, true, true, true, true, true];

/** A command run to its end, asynchronously: the gateway answering it runs in this process. */
function run(cmd: string, args: string[], opts: { cwd: string; env?: Record<string, string>; input?: string }) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: { ...process.env, ...opts.env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(opts.input ?? '');
  });
}
const node = (args: string[], opts: Parameters<typeof run>[2]) => run(process.execPath, args, opts);
const bin = (name: string) => join(root, 'node_modules/.bin', name);

describe('the client package', () => {
  let t: TestGateway;
  let key: string;
  let consumer: string;
  let tarballFile: string;
  const grainTables = (args: string[], env: Record<string, string> = {}) =>
    node([join(consumer, 'node_modules/.bin/grain-tables'), ...args], { cwd: consumer, env: { API_KEY: key, ...env } });
  let etag: string;
  /** The hour's count of the key, read with a conditional request, which is free (a 304 is not counted). */
  const used = async () => {
    const res = await get(t.url, '/api/changelog?limit=1', key, { 'if-none-match': etag });
    assert.equal(res.status, 304);
    return Number(res.headers['x-ratelimit-used']);
  };

  before(async () => {
    t = await startTestGateway({ RATE_LIMIT_PER_HOUR: '100' });
    key = await register(t.url, 'client-package@example.com');
    etag = (await get(t.url, '/api/changelog?limit=1', key)).headers.etag!;
    consumer = tempDir('consumer');
    writeFileSync(join(consumer, 'package.json'), '{"name": "consumer", "private": true, "type": "module"}\n');
  });
  after(() => t.close());

  it('is served with no key, whole, and installs offline into an empty folder with nothing beside it', async () => {
    const res = await get(t.url, CLIENT_TARBALL);
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], BODY_TYPES.tgz);
    assert.equal(res.headers['content-encoding'], undefined, 'a tarball is compressed already');
    assert.ok(res.body.length < 100_000, `${res.body.length} bytes`);
    assert.deepEqual(res.body, clientTarball(), 'the build carries the package its sources make');
    tarballFile = join(tempDir('download'), 'grain-tables-client.tgz');
    writeFileSync(tarballFile, res.body);
    const install = await run('npm', ['install', tarballFile, '--offline', '--no-audit', '--no-fund'], {
      cwd: consumer,
    });
    assert.equal(install.status, 0, install.stderr);
    const installed = readdirSync(join(consumer, 'node_modules')).filter((n) => !n.startsWith('.'));
    assert.deepEqual(installed, ['grain-tables-client']);
    const manifest = JSON.parse(readFileSync(join(consumer, 'node_modules/grain-tables-client/package.json'), 'utf8'));
    assert.equal(manifest.version, CLIENT_VERSION);
    assert.equal(manifest.dependencies, undefined);
    assert.equal(manifest.license, 'MIT');
    const version = await grainTables(['--version']);
    assert.equal(version.stdout, `${CLIENT_VERSION} (reads schema_version 1.0)\n`);
  });

  it('syncs every class for one counted request, an unchanged rerun for none; a past year likewise', async () => {
    const before = await used();
    const first = await grainTables(['sync', '--url', t.url, '--out', 'tables']);
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stdout, /^synced: 23 new, 0 changed, 0 unchanged, 0 removed; 1 request\(s\) counted/);
    assert.equal((await used()) - before, 1, 'the service counted one request');
    for (const path of ['/api/grains', grainKey('CWRS'), grainKey('CEFD')]) {
      const file = path === '/api/grains' ? 'grains.json' : `grains/${path.slice(path.lastIndexOf('/') + 1)}.json`;
      assert.deepEqual(readFileSync(join(consumer, 'tables', file)), (await get(t.url, path, key)).body, file);
    }
    const mid = await used();
    const again = await grainTables(['sync', '--url', t.url, '--out', 'tables']);
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, /^unchanged since the last sync: 23 records; 0 request\(s\) counted/);
    assert.equal(await used(), mid, 'a 304 is free');

    const logged = t.logs.length;
    const year = await grainTables(['sync', '--url', t.url, '--out', 'tables-2025-26', '--crop-year', '2025/26']);
    assert.equal(year.status, 0, year.stderr);
    assert.equal((await used()) - mid, 1);
    const classes = readdirSync(join(consumer, 'tables-2025-26/grains'));
    assert.equal(classes.length, 9, 'the classes published for 2025/26');
    // lines, not the log's chunks: a chunk may hold the signed edition's probe of the next root (a 404)
    const asked = t.logs
      .slice(logged)
      .join('')
      .split('\n')
      .filter((l) => l.includes('"path":"/api/'));
    assert.ok(!asked.some((l) => l.includes('"status":404')), asked.join('\n'));
    const cwrs = (await get(t.url, grainYearKey('CWRS', '2025/26'), key)).body;
    assert.deepEqual(readFileSync(join(consumer, 'tables-2025-26/grains/CWRS.json')), cwrs);
    const yearMid = await used();
    const yearArgs = ['sync', '--url', t.url, '--out', 'tables-2025-26', '--crop-year', '2025/26'];
    const yearAgain = await grainTables(yearArgs);
    assert.equal(yearAgain.status, 0, yearAgain.stderr);
    assert.match(yearAgain.stdout, /^unchanged since the last sync: 9 records; 0 request\(s\) counted/);
    assert.equal(await used(), yearMid, "an unchanged year's rerun is a free 304 too");
  });

  it('grades from the package as the repository grader does, on the synced copy', async () => {
    const sample = { values: { ergot: 0.05, minimum_test_weight: 80 }, judgments: { variety: 'No. 1 CWRS' } };
    const record = JSON.parse(readFileSync(join(consumer, 'tables/grains/CWRS.json'), 'utf8'));
    const script =
      "import { grade } from 'grain-tables-client/grade';" +
      "import { readFileSync } from 'node:fs';" +
      "const record = JSON.parse(readFileSync('tables/grains/CWRS.json', 'utf8'));" +
      `console.log(JSON.stringify(grade(record, ${JSON.stringify(sample)})));`;
    const imported = await node(['--input-type=module', '-e', script], { cwd: consumer });
    assert.equal(imported.status, 0, imported.stderr);
    assert.deepEqual(JSON.parse(imported.stdout), grade(record, sample));
    const cli = await grainTables(['grade', 'cwrs', '-', '--copy', 'tables'], {});
    const viaCli = await node(
      [join(consumer, 'node_modules/.bin/grain-tables'), 'grade', 'CWRS', '-', '--copy', 'tables'],
      {
        cwd: consumer,
        input: JSON.stringify(sample),
      },
    );
    assert.equal(cli.status, 2, 'an empty sample on standard input is not JSON');
    // without --copy, a client project has no build of the service's to read: it is told to sync
    const noCopy = await grainTables(['grade', 'CWRS', '-']);
    assert.equal(noCopy.status, 1);
    assert.match(
      noCopy.stderr,
      /^nothing to grade against: sync a copy first \(grain-tables sync --url <base URL> --out/,
    );
    assert.doesNotMatch(noCopy.stderr, /npm run/);
    assert.equal(viaCli.status, 0, viaCli.stderr);
    assert.deepEqual(JSON.parse(viaCli.stdout), grade(record, sample));
  });

  it('compiles every TypeScript block of its README strictly, a wrong field failing, and runs the first', async () => {
    const readme = readFileSync(join(root, 'build/client/README.md'), 'utf8');
    const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
    assert.ok(blocks.length >= 2, `${blocks.length} TypeScript blocks`);
    // a reader copies the blocks: none tells the compiler "trust me" with a non-null assertion
    for (const block of blocks) assert.doesNotMatch(block, /[\w)\]]!(?!=)/, block);
    const [example, ...others] = blocks as [string, ...string[]];
    const dir = join(consumer, 'ts');
    mkdirSync(dir);
    // the README's example as a new user would run it, against this gateway; the other blocks compiled
    writeFileSync(join(dir, 'example.ts'), example.replaceAll('https://<the service>', t.url));
    for (const [i, block] of others.entries()) writeFileSync(join(dir, `readme-${i + 2}.ts`), block);
    const tsconfig = {
      compilerOptions: {
        strict: true,
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        outDir: 'out',
        typeRoots: [join(root, 'node_modules/@types')],
        types: ['node'],
      },
      include: ['*.ts'],
    };
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
    writeFileSync(
      join(dir, 'wrong.ts'),
      "import { ApiError, createClient } from 'grain-tables-client';\n" +
        "const { body } = await createClient({ baseUrl: 'https://x', key: 'k' }).getGrain('CWRS');\n" +
        'console.log(body.not_a_field);\n' +
        "const e: unknown = new Error('x');\n" +
        "if (e instanceof ApiError && e.code === 'unknwon_grain') console.log(e.code);\n",
    );
    // one compiler run for both: every error it reports is named by file, so the example's part is
    // the lines naming example.ts, and there must be none (the consumer's package.json says
    // "type": "module", as the README asks)
    const tsc = await node([join(root, 'node_modules/typescript/bin/tsc'), '-p', dir], { cwd: dir });
    assert.notEqual(tsc.status, 0);
    const errors = tsc.stdout.split('\n').filter((line) => /: error TS\d+:/.test(line));
    assert.equal(errors.length, 2, tsc.stdout);
    assert.match(errors[0]!, /^wrong\.ts\(3,\d+\): error TS2339: Property 'not_a_field' does not exist/);
    assert.match(errors[1]!, /^wrong\.ts\(5,\d+\): error TS2367: .*'"unknwon_grain"'/);
    const ran = await node([join(dir, 'out/example.js')], { cwd: consumer, env: { API_KEY: key } });
    assert.equal(ran.status, 0, ran.stderr);
    assert.equal(ran.stdout, 'grade CW Feed\n0 request(s) counted\n', 'the copy synced above is current');

    // what the README says a project needs: without "type": "module" the same example fails
    const cjs = join(consumer, 'ts-cjs');
    mkdirSync(cjs);
    writeFileSync(join(cjs, 'package.json'), '{"name": "cjs", "private": true}\n');
    writeFileSync(join(cjs, 'example.ts'), example);
    writeFileSync(join(cjs, 'tsconfig.json'), JSON.stringify({ ...tsconfig, include: ['example.ts'] }));
    const cjsTsc = await node([join(root, 'node_modules/typescript/bin/tsc'), '-p', cjs, '--noEmit'], { cwd: cjs });
    assert.notEqual(cjsTsc.status, 0);
    assert.match(cjsTsc.stdout, /error TS1309: The current file is a CommonJS module and cannot use 'await'/);
  });

  it('passes the packaging linters: publint, and "are the types wrong" for an ES module package', async () => {
    const dir = join(consumer, 'node_modules/grain-tables-client');
    const [publint, attw] = await Promise.all([
      run(bin('publint'), [dir, '--strict'], { cwd: dir }),
      run(bin('attw'), [tarballFile, '--profile', 'esm-only', '--format', 'ascii'], { cwd: consumer }),
    ]);
    assert.equal(publint.status, 0, publint.stdout + publint.stderr);
    assert.match(publint.stdout, /All good!/);
    assert.equal(attw.status, 0, attw.stdout + attw.stderr);
    assert.doesNotMatch(attw.stdout, /❌|💀 Resolution failed\n(?!.*ignored)/);
  });

  it('ships the declarations its sources make (npm run client:types)', () => {
    const fresh = clientDeclarations();
    const dir = join(root, TYPES_DIR);
    const committed = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.d.ts'));
    assert.deepEqual(committed.sort(), [...fresh.keys()].sort(), 'the same files');
    for (const [file, text] of fresh) {
      assert.equal(readFileSync(join(dir, file), 'utf8'), text, `${file} is stale: run npm run client:types`);
    }
    assert.ok(sameShapes.every(Boolean));
  });

  it("holds in its snapshot every class's and every year's record body, and every summary's crop_years", () => {
    const site = realSiteDir();
    const read = (path: string) => readFileSync(join(site, path), 'utf8');
    const build = readBuild(read);
    const body = (key: string) => plainBody(build, key, (path) => readFileSync(join(site, path)))!.toString('utf8');
    const list = JSON.parse(body('/api/grains'));
    const years = new Set<string>();
    for (const g of list.grains) {
      assert.ok(g.crop_years.length >= 1 && g.crop_years.at(-1) === g.effective_crop_year, g.grain_id);
      assert.deepEqual(g.crop_years, [...g.crop_years].sort(), 'oldest first');
      for (const y of g.crop_years) years.add(y);
    }
    const now = JSON.parse(body(snapshotKey(null)));
    assert.equal(now.crop_year, null);
    assert.deepEqual(
      now.grains.map((r: { grain_id: string }) => r.grain_id),
      list.grains.map((g: { grain_id: string }) => g.grain_id),
    );
    for (const r of now.grains) assert.equal(JSON.stringify(r), body(grainKey(r.grain_id)), r.grain_id);
    assert.equal(now.changelog.length, JSON.parse(body('/api/changelog?limit=100')).count);
    for (const year of years) {
      const snap = JSON.parse(body(snapshotKey(year)));
      const having = list.grains.filter((g: { crop_years: string[] }) => g.crop_years.includes(year));
      assert.equal(snap.count, having.length, year);
      for (const r of snap.grains) assert.equal(JSON.stringify(r), body(grainYearKey(r.grain_id, year)), r.grain_id);
    }
  });
});
