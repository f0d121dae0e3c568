// tier: full (the build's CLI)
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { buildSite as buildSiteWith } from '../build/build-site.ts';
import { draftChangelog } from '../build/changelog/files.ts';
import { changelogOrder } from '../build/compile/compile.ts';
import { DATA_TERMS } from '../build/compile/openapi.ts';
import { type EmittedSite, emitSite } from '../build/emit/emit.ts';
import { folderFiles } from '../build/publish/build-files.ts';
import { keptBuilds, livePointer, publishSite, publishStaged, rollBack, stagingDir } from '../build/publish/publish.ts';
import {
  bodyHash,
  CONTENT_ADDRESSED,
  changelogKey,
  contentAddressed,
  grainYearKey,
  type Manifest,
  PAGE_TEMPLATES,
  snapshotKey,
  tableKey,
} from '../build/site-format.ts';
import type { ChangelogEntry } from '../build/types.ts';
import { buildSite, plainOf, siteFromDataset, testKit } from './helpers/build.ts';
import { bundled } from './helpers/bundles.ts';
import { baseGrain, INTERFACE_NINE, OTHER_WHEAT, tempDir, writeDataset } from './helpers/dataset.ts';
import { openApiAjv, strictDocument } from './helpers/openapi-check.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const now = new Date('2026-11-24T08:00:00Z');
const real = await buildSite(join(root, 'dataset'));
assert.ok(real.ok, 'the real dataset builds');
const { site } = real;
const body = (key: string) => JSON.parse(plainOf(site, key).toString('utf8'));

function treeOf(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.set(relative(dir, p), readFileSync(p).toString('base64'));
    }
  };
  walk(dir);
  return out;
}

describe('build', () => {
  it("lists the 23 classes in the published order: interface.md's nine, then the other wheat classes", () => {
    const list = body('/api/grains');
    assert.equal(list.schema_version, '1.0');
    assert.equal(list.count, 23);
    assert.deepEqual(
      list.grains.map((g: { grain_id: string }) => g.grain_id),
      [...INTERFACE_NINE, ...OTHER_WHEAT],
    );
    for (const g of list.grains.slice(9)) {
      assert.equal(g.kind, 'wheat');
      assert.equal(g.region, g.grain_id.startsWith('CE') ? 'eastern' : 'western');
      assert.equal(g.effective_crop_year, '2026/27');
      assert.match(g.grain_name, /^Canad(a|ian) /);
    }
    assert.deepEqual(Object.keys(list.grains[0]), [
      'grain_id',
      'grain_name',
      'kind',
      'region',
      'use_class',
      'effective_crop_year',
      'crop_years',
      'coverage_status',
      'grades',
    ]);
    assert.deepEqual(
      list.grains.slice(0, 9).map((g: { grain_name: string }) => g.grain_name),
      [
        'Canada Western Red Spring',
        'Canada Western Amber Durum',
        'Canada Prairie Spring Red',
        'Canola, Canada (CAN)',
        'Barley, Canada Western General Purpose',
        'Barley, Canada Eastern General Purpose',
        'Corn, Canada Western Yellow, White or Mixed',
        'Corn, Canada Eastern Yellow, White or Mixed',
        'Soybeans, Canada Yellow, Green, Brown, Black or Mixed',
      ],
    );
    assert.deepEqual(list.grains[9], {
      grain_id: 'CWHWS',
      grain_name: 'Canada Western Hard White Spring',
      kind: 'wheat',
      region: 'western',
      use_class: null,
      effective_crop_year: '2026/27',
      crop_years: ['2026/27'],
      coverage_status: 'complete',
      grades: ['No. 1 CWHWS', 'No. 2 CWHWS', 'No. 3 CWHWS', 'CW Feed'],
    });
  });

  it('matches the golden record for CORN_CW, byte for byte', () => {
    const golden = readFileSync(join(root, 'test/fixtures/golden/CORN_CW.json'), 'utf8');
    const hash = site.manifest.routes['/api/grains/CORN_CW']!;
    const bytes = site.files.get(site.manifest.bodies[hash]!.identity.file!)!.toString('utf8');
    assert.equal(bytes, JSON.stringify(JSON.parse(golden)));
  });

  it('has a body for every changelog filter and limit 1..100', () => {
    const filters = [null, ...site.manifest.grain_ids];
    for (const f of filters) {
      for (let limit = 1; limit <= 100; limit++)
        assert.ok(site.manifest.routes[changelogKey(f, limit)], changelogKey(f, limit));
    }
    assert.equal(site.manifest.routes[changelogKey(null, 101)], undefined);
    const n = site.manifest.grain_ids.length;
    const pages = [
      '/',
      '/docs',
      '/grade',
      '/assets/site.css',
      '/assets/page.js',
      '/assets/grade-page.js',
      '/assets/icon.svg',
      '/client/grade.js',
      '/client/api.js',
      '/_templates/registered',
      '/_templates/register-error',
      '/_templates/recover-request',
      '/_templates/recover-confirm',
      '/_templates/recover-sent',
      '/tables/changes.atom',
    ];
    for (const p of pages) assert.ok(site.manifest.routes[p], p);
    // the pages, the templates and each file twice: by its plain and its content-addressed name
    const files = Object.keys(site.manifest.routes).filter((r) => /^\/(assets|client)\//.test(r));
    assert.equal(files.filter((r) => CONTENT_ADDRESSED.test(r)).length * 2, files.length);
    // each record twice: by itself and as of its crop year (no class of the dataset has a past year yet),
    // the tables' pages (the index, the changes feed, and each class's page twice likewise), and the
    // snapshot now and as of each of the dataset's two crop years
    const tables = 2 + 2 * n;
    // and under its signed edition's target path (docs/operations.md, Signed editions) each data body
    // of those: each record twice, the list and the three snapshots
    const targets = 2 * n + 1 + 3;
    assert.equal(
      Object.keys(site.manifest.routes).length,
      2 + 2 * n + (n + 1) * 100 + 8 + files.length + tables + 3 + targets,
    );
  });

  it('says whose the tables are, and names no licence for them, in the document, on /docs and in the README', () => {
    const openapi = body('/api/openapi.json');
    assert.deepEqual(openapi.info.license, {
      name: 'MIT (the service: code and documentation; not the tables)',
      identifier: 'MIT',
    });
    assert.ok(openapi.info.description.endsWith(DATA_TERMS), openapi.info.description);
    const docs = plainOf(site, '/docs').toString('utf8');
    assert.ok(docs.includes(DATA_TERMS.replace(/'/g, '&#39;')), 'the reference page repeats the terms');
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    assert.match(readme, /## Data and licence\n\nThe code and documentation are under the MIT License \(LICENSE\)/);
    assert.match(readFileSync(join(root, 'LICENSE'), 'utf8'), /^MIT License\n/);
  });

  it('serves every body as the schema in the OpenAPI document describes it, exactly', () => {
    const openapi = body('/api/openapi.json');
    assert.equal(openapi.openapi, '3.1.0');
    // held to the build's exact schemas, and to the document's, which are open to additions
    const ajv = openApiAjv(strictDocument(openapi));
    const published = openApiAjv(openapi);
    const validator = (name: string) => ajv.getSchema(`openapi.json#/components/schemas/${name}`)!;
    const publishedValidator = (name: string) => published.getSchema(`openapi.json#/components/schemas/${name}`)!;
    const schemaFor = (key: string) =>
      key === '/api/grains'
        ? 'GrainList'
        : key.startsWith('/api/grains/')
          ? 'GrainRecord'
          : key.startsWith('/api/changelog')
            ? 'Changelog'
            : key.startsWith('/api/snapshot')
              ? 'Snapshot'
              : null;
    let checked = 0;
    for (const key of Object.keys(site.manifest.routes)) {
      const name = schemaFor(key);
      if (!name) continue;
      const [v, p] = [validator(name), publishedValidator(name)];
      assert.ok(v(body(key)), `${key}: ${ajv.errorsText(v.errors)}`);
      assert.ok(p(body(key)), `${key}: ${published.errorsText(p.errors)}`);
      checked++;
    }
    const n = site.manifest.grain_ids.length;
    assert.equal(checked, 1 + 2 * n + (n + 1) * 100 + 3); // every data body
    // a body with a field no version has is refused by the exact schemas (the test can fail), and
    // accepted by the published ones, as a client generated from the document must accept a field added later
    const record = body('/api/grains/CWRS');
    const factor = record.factor_groups[0].factors[0];
    const added = [
      { ...record, extra: 1 },
      { ...record, factor_groups: [{ ...record.factor_groups[0], factors: [{ ...factor, extra: 1 }] }] },
    ];
    for (const r of added) {
      assert.equal(validator('GrainRecord')(r), false);
      assert.equal(publishedValidator('GrainRecord')(r), true, published.errorsText());
    }
    assert.equal(validator('GrainRecord')({ ...record, grain_id: 1 }), false);
    assert.equal(publishedValidator('GrainRecord')({ ...record, grain_id: 1 }), false, 'open, but still typed');
    // no schema of the document is closed: the exact field sets are the build's own check
    assert.doesNotMatch(JSON.stringify(openapi.components.schemas), /"additionalProperties":false/);
    // every operation of the API is described
    assert.deepEqual(Object.keys(openapi.paths).sort(), [
      '/api/changelog',
      '/api/grains',
      '/api/grains/{grain_id}',
      '/api/keys/current',
      '/api/keys/recover',
      '/api/keys/recover/confirm',
      '/api/openapi.json',
      '/api/register',
      '/api/snapshot',
      '/health',
    ]);
  });

  it('keeps each encoding decodable to the same bytes, with its own strong ETag', () => {
    for (const [hash, entry] of Object.entries(site.manifest.bodies)) {
      // a plain form stored only as gzip (emit.ts, plainStored) is that form unzipped: its hash is its name
      const { file } = entry.identity;
      const identity = file ? site.files.get(file)! : gunzipSync(site.files.get(entry.gzip!.file)!);
      assert.equal(bodyHash(identity), hash);
      assert.equal(entry.identity.length, identity.length);
      assert.equal(entry.identity.etag, `"${hash}"`);
      if (entry.br) assert.deepEqual(brotliDecompressSync(site.files.get(entry.br.file)!), identity);
      if (entry.gzip) assert.deepEqual(gunzipSync(site.files.get(entry.gzip.file)!), identity);
      const tags = [entry.identity, entry.br, entry.gzip].filter(Boolean).map((v) => v!.etag);
      assert.equal(new Set(tags).size, tags.length);
    }
  });

  it('stores the plain form of a data body few ask for only as gzip, whatever order it is given in', async () => {
    const meta = { dataset_version: 'v', grain_ids: ['A'], schema_version: '1.0' };
    const page = (n: number) => JSON.stringify({ entries: Array.from({ length: 40 }, (_, i) => ({ id: i, n })) });
    const fillers = [1, 2, 3, 4].map((n): [string[], string] => [[`/api/grains/F${n}`], page(100 + n)]);
    const [other, yearly, table] = [changelogKey(null, 3), grainYearKey('A', '2024/25'), tableKey('A', '2024/25')];
    const cases: [string, [string[], string][], boolean][] = [
      ['the changelog at another limit', [[[other], page(1)]], false],
      ["a past crop year's record", [[[yearly], page(2)]], false],
      ["a past crop year's snapshot", [[[snapshotKey('2024/25')], page(3)]], false],
      ["a past crop year's table page, which anyone reads", [[[table], page(4)]], true],
      ['too small for gzip to be smaller', [[[other], '{}']], true],
      ['given with the default limit', [[[other, changelogKey(null, 20)], page(5)]], true],
      // given again once its encodings are done (the fillers between), or while they are under way
      ['given again as the current record', [[[yearly], page(6)], ...fillers, [['/api/grains/A'], page(6)]], true],
      [
        'given first as the current record',
        [
          [['/api/grains/A'], page(7)],
          [[yearly], page(7)],
        ],
        true,
      ],
    ];
    const kept = new Map<string, Buffer>(); // encodings kept, so a body's are done at once (encode.ts)
    for (const [what, bodies, stored] of cases) {
      for (const round of [1, 2]) {
        const { manifest, files } = await emitSite(bodies, { ...meta, encodings: kept });
        const hash = bodyHash(bodies[0]![1]);
        const { identity, gzip } = manifest.bodies[hash]!;
        assert.equal(identity.file !== undefined, stored, `${what} (round ${round})`);
        const plainFiles = [...files.keys()].filter((f) => f.startsWith(`bodies/${hash}.`) && !/\.(br|gz)$/.test(f));
        assert.equal(plainFiles.length, stored ? 1 : 0, what);
        assert.deepEqual(
          stored ? files.get(identity.file!) : gunzipSync(files.get(gzip!.file)!),
          Buffer.from(bodies[0]![1]),
        );
        assert.equal(identity.etag, `"${hash}"`);
      }
    }
    // in the real build: the changelog beyond its default limit, and nothing a page or the current tables need
    const storedAt = (key: string) => site.manifest.bodies[site.manifest.routes[key]!]!.identity.file !== undefined;
    assert.equal(storedAt(changelogKey(null, 1)), false);
    assert.ok([changelogKey(null, 20), '/api/grains/CWRS', '/api/snapshot', '/docs'].every(storedAt));
  });

  it('is byte-for-byte deterministic', async () => {
    const again = await buildSite(join(root, 'dataset'));
    assert.ok(again.ok);
    assert.equal(again.site.manifest.build_id, site.manifest.build_id);
    // the same files, whatever order their encodings finished in (emit.ts)
    assert.deepEqual([...again.site.files.keys()].sort(), [...site.files.keys()].sort());
    for (const [k, v] of site.files) assert.ok(v.equals(again.site.files.get(k)!), k);
    const a = tempDir('det-a');
    const b = tempDir('det-b');
    publishSite(a, site);
    publishSite(b, again.site);
    assert.deepEqual(treeOf(a), treeOf(b));
    // npm run build's way: each file written into a folder as it is made, then swapped in
    const c = tempDir('det-c');
    const files = folderFiles(stagingDir(c));
    const streamed = await buildSiteWith(join(root, 'dataset'), { kit: testKit(), files });
    assert.ok(streamed.ok);
    assert.equal(files.count, site.files.size);
    assert.equal(publishStaged(c, files, streamed.site.manifest).reused, false);
    assert.deepEqual(treeOf(c), treeOf(a));
  });

  it('changes the build id when one number changes', async () => {
    const dir = writeDataset({ grains: { TEST: baseGrain() } });
    const one = await buildSite(dir);
    writeFileSync(join(dir, 'grains/TEST.yaml'), baseGrain().replace('[0.04, 0.04, 0.10]', '[0.04, 0.04, 0.1]'));
    assert.ok(
      draftChangelog(dir, { summary: 'T Feed ergot printed 0.1.', effectiveDate: '2026-11-24', now, correction: true })
        .ok,
    );
    const two = await buildSite(dir);
    assert.ok(one.ok && two.ok);
    assert.notEqual(one.site.manifest.build_id, two.site.manifest.build_id);
  });

  it('publishes nothing when the dataset has an error', async () => {
    const dir = writeDataset({ grains: { TEST: baseGrain().replace('kind: wheat', 'kind: wheet') } });
    const out = tempDir('bad-out');
    const run = spawnSync(process.execPath, await bundled('build', '--dataset', dir, '--out', out), {
      encoding: 'utf8',
    });
    assert.equal(run.status, 1);
    assert.match(run.stderr, /^grains\/TEST\.yaml:3:7: kind: must be one of/m);
    assert.match(run.stderr, /1 error; nothing was published\./);
    assert.deepEqual(readdirSync(out), []);
  });
});

describe('content-addressed files', () => {
  const text = (route: string) => plainOf(site, route).toString('utf8');
  it('every page links its files by their content-addressed names, each the same body as its plain name', () => {
    for (const page of ['/', '/docs', '/grade', PAGE_TEMPLATES.registered, PAGE_TEMPLATES.registerError]) {
      const links = [...text(page).matchAll(/(?:src|href)="(\/(?:assets|client)\/[^"]+)"/g)].map((m) => m[1]!);
      assert.ok(links.length >= 3, `${page} links its stylesheet, icon and script`);
      for (const link of links) {
        assert.match(link, CONTENT_ADDRESSED, `${page} links ${link}`);
        const plain = link.replace(/\.[0-9a-f]{12}(\.[a-z]+)$/, '$1');
        assert.equal(site.manifest.routes[link], site.manifest.routes[plain], `${link} is ${plain}`);
        assert.equal(contentAddressed(plain, createHash('sha256').update(text(plain)).digest('hex')), link);
      }
    }
  });
});

describe('publish', () => {
  let other: EmittedSite;
  before(async () => {
    const built = await buildSite(writeDataset({ grains: { TEST: baseGrain() } }));
    assert.ok(built.ok);
    other = built.site;
  });

  it('swaps the pointer only after the new build is complete, and keeps recent builds', () => {
    const out = tempDir('swap');
    publishSite(out, site);
    assert.equal(livePointer(out)?.build_id, site.manifest.build_id);
    // a build that died half-way leaves only a temporary folder, which changes nothing
    mkdirSync(join(out, 'builds', '.tmp-dead-1-1', 'bodies'), { recursive: true });
    publishSite(out, other);
    assert.equal(livePointer(out)?.build_id, other.manifest.build_id);
    assert.ok(
      existsSync(join(out, 'builds', site.manifest.build_id, 'manifest.json')),
      'the previous build stays for readers still on it',
    );
    const again = publishSite(out, other);
    assert.equal(again.reused, true);
    // a damaged folder of the same id is written again, not reused
    const file = [...other.files.keys()].find((f) => f.startsWith('bodies/'))!;
    writeFileSync(join(out, 'builds', other.manifest.build_id, file), 'cut');
    assert.equal(publishSite(out, other).reused, false);
    assert.deepEqual(readFileSync(join(out, 'builds', other.manifest.build_id, file)), other.files.get(file));
  });

  it('rolls back to a kept build, and refuses a build it does not keep', () => {
    const out = tempDir('rollback');
    publishSite(out, site);
    publishSite(out, other);
    const [a, b] = [site.manifest.build_id, other.manifest.build_id];
    assert.deepEqual(
      keptBuilds(out)
        .map((k) => [k.build_id, k.live, k.dataset_version])
        .sort(),
      [
        [a, false, site.manifest.dataset_version],
        [b, true, other.manifest.dataset_version],
      ].sort(),
    );
    assert.equal(rollBack(out, a).build_id, a);
    assert.equal(livePointer(out)?.build_id, a);
    assert.throws(() => rollBack(out, '0123456789abcdef'), /no whole build 0123456789abcdef is kept/);
    assert.equal(livePointer(out)?.build_id, a, 'a refused rollback changes nothing');
  });

  it('never shows a reader half a build while builds are published', async () => {
    const out = tempDir('race');
    publishSite(out, site);
    // another process publishes the two builds in turn while this one reads as a gateway would
    const script = `
      import { buildKit, buildSite } from ${JSON.stringify(join(root, 'build/build-site.ts'))};
      import { publishSite } from ${JSON.stringify(join(root, 'build/publish/publish.ts'))};
      const kit = buildKit({ encodings: new Map() });
      const a = await buildSite(${JSON.stringify(join(root, 'dataset'))}, { kit });
      const b = await buildSite(process.env.OTHER_DATASET, { kit });
      for (let i = 0; i < 40; i++) publishSite(${JSON.stringify(out)}, (i % 2 ? a : b).site);
    `;
    const writer = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: 'inherit',
      env: { ...process.env, OTHER_DATASET: writeDataset({ grains: { TEST: baseGrain() } }) },
    });
    const done = new Promise<number | null>((r) => writer.on('exit', r));
    let reads = 0;
    let finished = false;
    void done.then(() => (finished = true));
    while (!finished) {
      const pointer = livePointer(out);
      assert.ok(pointer, 'a pointer is always there');
      const manifest = JSON.parse(readFileSync(join(out, pointer.dir, 'manifest.json'), 'utf8')) as Manifest;
      assert.equal(manifest.build_id, pointer.build_id);
      for (const { identity, gzip } of Object.values(manifest.bodies)) {
        const [file, length] = identity.file ? [identity.file, identity.length] : [gzip!.file, gzip!.length];
        assert.equal(readFileSync(join(out, pointer.dir, file)).length, length);
      }
      reads++;
      await new Promise((r) => setImmediate(r));
    }
    assert.equal(await done, 0);
    assert.ok(reads > 5, `read ${reads} times during the publishing`);
  });
});

describe('changelog order', () => {
  const e = (id: string, effective_date: string, created_at: string): ChangelogEntry => ({
    id,
    effective_date,
    created_at,
    crop_year: '2025/26',
    grain_ids_affected: ['TEST'],
    summary: id,
    changes: null,
    correction: false,
  });
  const cases: [string, ChangelogEntry[], string[]][] = [
    [
      'effective_date descending',
      [e('a', '2026-01-01', '2026-01-01T00:00:00Z'), e('b', '2026-02-01', '2026-01-01T00:00:00Z')],
      ['b', 'a'],
    ],
    [
      'then created_at descending',
      [e('a', '2026-01-01', '2026-01-01T00:00:00Z'), e('b', '2026-01-01', '2026-01-02T00:00:00Z')],
      ['b', 'a'],
    ],
    [
      'then id ascending',
      [e('b', '2026-01-01', '2026-01-01T00:00:00Z'), e('a', '2026-01-01', '2026-01-01T00:00:00Z')],
      ['a', 'b'],
    ],
  ];
  for (const [name, entries, expected] of cases) {
    it(name, () =>
      assert.deepEqual(
        [...entries].sort(changelogOrder).map((x) => x.id),
        expected,
      ),
    );
  }

  it('filters by grain and cuts at the limit', async () => {
    const grains = { AAA: baseGrain('AAA'), BBB: baseGrain('BBB') };
    const changelog = `entries:\n${[1, 2, 3, 4, 5]
      .map(
        (n) => `  - id: e${n}
    crop_year: 2025/26
    effective_date: 2026-0${n}-01
    grain_ids_affected: [${n % 2 ? 'AAA' : 'AAA, BBB'}]
    summary: Entry ${n}.
    created_at: 2026-0${n}-01T00:00:00Z
`,
      )
      .join('')}`;
    const r = await buildSite(writeDataset({ grains, changelog }));
    assert.ok(r.ok, !r.ok ? JSON.stringify(r.errors) : '');
    const get = (key: string) => JSON.parse(plainOf(r.site, key).toString());
    assert.deepEqual(
      get(changelogKey(null, 20)).entries.map((x: ChangelogEntry) => x.id),
      ['e5', 'e4', 'e3', 'e2', 'e1'],
    );
    assert.deepEqual(get(changelogKey(null, 2)), {
      schema_version: '1.0',
      count: 2,
      entries: get(changelogKey(null, 20)).entries.slice(0, 2),
    });
    assert.deepEqual(
      get(changelogKey('BBB', 20)).entries.map((x: ChangelogEntry) => x.id),
      ['e4', 'e2'],
    );
    assert.equal(get(changelogKey('BBB', 1)).count, 1);
    assert.equal(r.site.manifest.dataset_version, 'e5');
    assert.equal((await siteFromDataset(r.dataset)).manifest.build_id, r.site.manifest.build_id);
  });
});
