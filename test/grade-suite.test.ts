// tier: full (the grade suite's runner)
// The conformance suite as a port gets it (GET /client/grade-suite.json) and the result schema
// beside it: both served without a key; the suite valid against its own schema and reaching what
// the records hold; the published module and `npm run grade` giving every expected answer; every
// answer valid against the result schema; `grade` never a sentence, over the suite and over every
// fall-through of every class (all asked of the gateway's app in process, helpers/inject.ts); and the
// runner docs/grading.md shows, run as written: a program of its own, asking a listening gateway.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { gradeCommand } from '../build/client/cli/grade-command.ts';
import type { grade as gradeFn } from '../build/grading/grade.ts';
import type { SuiteGroup } from '../build/grading/grade-suite/suite.ts';
import type { CompiledRecord } from '../build/types.ts';
import { tempDir } from './helpers/dataset.ts';
import { fallthroughSamples } from './helpers/fallthroughs.ts';
import { get, register, root, startTestGateway, type TestGateway } from './helpers/gateway.ts';
import { suiteGaps } from './helpers/grade-suite-coverage.ts';
import { injectGet, injectRegister, startTestApp, type TestApp } from './helpers/inject.ts';

/**
 * The fields of `expected` that `actual` does not give exactly (the suite's rule: named fields are
 * compared as JSON).
 */
const differences = (expected: Record<string, unknown>, actual: Record<string, unknown>) =>
  Object.keys(expected).filter((k) => !isDeepStrictEqual(actual[k], expected[k]));

/** A sentence where a grade name belongs: the old "Not stated …" text, a placeholder left in, a colon's reason. */
const SENTENCE = /not stated|\{|\}|: |\bif\b|\bwhere\b/i;

describe('the conformance suite, as a port gets it', () => {
  let t: TestApp;
  let suite: SuiteGroup[];
  let records: Map<string, CompiledRecord>;
  let grade: typeof gradeFn;
  let validResult: ReturnType<Ajv2020['compile']>;
  before(async () => {
    t = await startTestApp();
    const key = await injectRegister(t.app, 'suite@example.com');
    suite = (await injectGet(t.app, '/client/grade-suite.json')).json();
    const list = (await injectGet(t.app, '/api/grains', key)).json().grains as { grain_id: string }[];
    records = new Map();
    for (const { grain_id } of list)
      records.set(grain_id, (await injectGet(t.app, `/api/grains/${grain_id}`, key)).json());
    const file = join(tempDir('suite-module'), 'grade.mjs');
    writeFileSync(file, (await injectGet(t.app, '/client/grade.js')).body);
    grade = (await import(pathToFileURL(file).href)).grade;
    const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
    validResult = ajv.compile((await injectGet(t.app, '/client/grade-result.schema.json')).json());
  });
  after(() => t.close());

  for (const path of [
    '/client/grade-suite.json',
    '/client/grade-result.schema.json',
    '/client/grade-suite.schema.json',
  ]) {
    it(`serves ${path} without a key, as JSON with an ETag and compression`, async () => {
      const res = await injectGet(t.app, path, undefined, { 'accept-encoding': 'br' });
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
      assert.equal(res.headers['content-encoding'], 'br');
      assert.match(res.headers.etag!, /^"[0-9a-f]{32}\.br"$/);
      const again = await injectGet(t.app, path, undefined, {
        'if-none-match': res.headers.etag!,
        'accept-encoding': 'br',
      });
      assert.equal(again.status, 304);
      const body = (await injectGet(t.app, path)).json();
      assert.ok(Array.isArray(body) || body.$schema === 'https://json-schema.org/draft/2020-12/schema');
    });
  }

  it('the suite validates against its own schema', async () => {
    const schema = (await injectGet(t.app, '/client/grade-suite.schema.json')).json();
    const valid = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true }).compile(schema);
    assert.ok(valid(suite), JSON.stringify(valid.errors?.slice(0, 3)));
    const broken = structuredClone(suite);
    delete (broken[0]!.cases[0] as Partial<(typeof broken)[0]['cases'][0]>).decided_by;
    assert.equal(valid(broken), false, 'a case without the row and column that decide it is refused');
  });

  it('has five cases or more for every class and reaches every rule, track, region and colour the records hold', () => {
    assert.deepEqual(new Set(suite.map((g) => g.grain_id)), new Set(records.keys()));
    assert.deepEqual(suiteGaps(suite, [...records.values()]), []);
    const results = new Set(suite.flatMap((g) => g.cases.map((c) => c.expected.result)));
    assert.deepEqual([...results].filter(Boolean).sort(), ['fallthrough', 'grade', 'undetermined']);
  });

  it('the published module gives every expected answer, each valid against the result schema', () => {
    let n = 0;
    for (const g of suite) {
      for (const c of g.cases) {
        const r = grade(records.get(c.grain_id ?? g.grain_id)!, c.sample) as Record<string, unknown>;
        assert.deepEqual(differences(c.expected, r), [], `${g.grain_id}: ${c.description}: ${JSON.stringify(r)}`);
        assert.ok(validResult(r), `${g.grain_id}: ${c.description}: ${JSON.stringify(validResult.errors)}`);
        if (typeof r.grade === 'string') assert.doesNotMatch(r.grade, SENTENCE, `${g.grain_id}: ${c.description}`);
        n++;
      }
    }
    assert.ok(n >= 5 * 23, `${n} cases`);
  });

  // npm run grade's command in this process: test/grade-module.test.ts runs the CLI as a process
  // (its exit codes, its help); here its every answer, without 165 start-ups
  it('npm run grade gives every expected answer too', () => {
    const failed: string[] = [];
    for (const g of suite) {
      for (const c of g.cases) {
        const id = c.grain_id ?? g.grain_id;
        const out: string[] = [];
        const io = { readSample: () => JSON.stringify(c.sample), out: (l: string) => out.push(l), err: () => {} };
        const code = gradeCommand([id, '-', '--site', t.siteDir], { io });
        const refused = 'field' in c.expected;
        if (code !== (refused ? 2 : 0)) failed.push(`${id}: ${c.description}: exit ${code}`);
        else if (!refused && differences(c.expected, JSON.parse(out.join('\n'))).length)
          failed.push(`${id}: ${c.description}`);
      }
    }
    assert.deepEqual(failed, []);
  });

  it('grade is never a sentence: every fall-through of every class', () => {
    let n = 0;
    for (const record of records.values()) {
      for (const { sample, factor_id } of fallthroughSamples(record)) {
        const r = grade(record, sample);
        assert.ok(!('error' in r), JSON.stringify(r));
        assert.ok(validResult(r), `${record.grain_id} ${factor_id}: ${JSON.stringify(validResult.errors)}`);
        assert.equal(r.result, 'fallthrough', `${record.grain_id} ${factor_id}: ${JSON.stringify(r)}`);
        assert.ok(
          r.outcomes.some((o) => o.factor_id === factor_id),
          `${record.grain_id} ${factor_id}`,
        );
        for (const g of [r.grade, ...r.outcomes.map((o) => o.grade)]) {
          if (g === null) continue;
          assert.doesNotMatch(g, SENTENCE, `${record.grain_id} ${factor_id}`);
        }
        if (r.grade === null) assert.match(r.reason!, /^not stated by the authority: /);
        n++;
      }
    }
    assert.ok(n > 200, `${n} fall-throughs`);
  });
});

// The runner is a program of its own: it asks a gateway listening on a URL, as a port's would
describe('the conformance suite, run by the runner a port copies', () => {
  let t: TestGateway;
  before(async () => {
    t = await startTestGateway();
  });
  after(() => t.close());

  it('the runner docs/grading.md shows holds the reference grader to the suite, and it passes', async () => {
    const doc = readFileSync(join(root, 'docs/grading.md'), 'utf8');
    const runner = /## Checking a port[\s\S]*?```js\n([\s\S]*?)```/.exec(doc)?.[1];
    assert.ok(runner, 'a runner in docs/grading.md');
    assert.ok(runner.split('\n').length <= 25, 'about twenty lines');
    const dir = tempDir('runner');
    writeFileSync(join(dir, 'run-suite.mjs'), runner);
    writeFileSync(join(dir, 'my-port.mjs'), (await get(t.url, '/client/grade.js')).body);
    const key = await register(t.url, 'runner@example.com');
    const suite: SuiteGroup[] = (await get(t.url, '/client/grade-suite.json')).json();
    const out = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = spawn(process.execPath, ['run-suite.mjs', t.url, key], { cwd: dir });
      let stdout = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.on('close', (code) => resolve({ code, stdout }));
    });
    const total = suite.reduce((n, g) => n + g.cases.length, 0);
    assert.equal(out.stdout, `${total} passed, 0 failed\n`);
    assert.equal(out.code, 0);
  });
});
