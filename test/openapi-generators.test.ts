// The OpenAPI document as generators of clients and contract testers read it (docs/contract.md,
// Records; Errors and HTTP): an enum states its type beside its values, "null" too where null is
// one of them (a generator keeps only the values its type names, and would drop the null of
// region, use_class, parts_stated); every response header is required (the service always sends
// the headers the document names, so a tester checks them); each error answer lists its codes, each
// under the status the catalogue gives it; a 304 has no body. The walk is held to schemas made
// wrong on purpose first, so that it can fail.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { buildOpenApi, type OpenApi } from '../build/compile/openapi.ts';
import { loadDataset } from '../build/load/load.ts';
import { ERRORS } from '../gateway/errors.ts';
import { validateDataset } from './helpers/build.ts';
import { root } from './helpers/gateway.ts';

// biome-ignore lint/suspicious/noExplicitAny: the document is walked as plain JSON
type Json = any;

const jsonType = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/** Every enum in `value` whose type does not name each of its values' types, by where it is. */
function untypedEnums(value: Json, at = '#'): string[] {
  if (!value || typeof value !== 'object') return [];
  const own: string[] = [];
  if (Array.isArray(value.enum)) {
    const types: string[] = [value.type ?? []].flat();
    const named = (t: string) => types.includes(t) || (t === 'number' && types.includes('integer'));
    const missing = [...new Set(value.enum.map(jsonType))].filter((t) => !named(t as string));
    if (missing.length) own.push(`${at}: enum ${JSON.stringify(value.enum)} has no type ${missing.join(', ')}`);
  }
  return [...own, ...Object.entries(value).flatMap(([k, v]) => untypedEnums(v, `${at}/${k}`))];
}

/** Each operation's answers, as `METHOD /path status` → the answer. */
function answers(doc: OpenApi): [string, Json][] {
  return Object.entries(doc.paths as Record<string, Record<string, Json>>).flatMap(([path, item]) =>
    Object.entries(item).flatMap(([method, op]) =>
      Object.entries(op.responses as Record<string, Json>).map(
        ([status, r]) => [`${method.toUpperCase()} ${path} ${status}`, r] as [string, Json],
      ),
    ),
  );
}

describe('the walk for enums a generator would mistype', () => {
  const cases: [string, Json, number][] = [
    ['an enum with null and no type', { enum: ['western', 'eastern', null] }, 1],
    ['an enum with null and a type without it', { type: 'string', enum: ['a', null] }, 1],
    ['a string enum with no type', { properties: { kind: { enum: ['wheat'] } } }, 1],
    ['a nullable enum typed with null', { type: ['string', 'null'], enum: ['a', null] }, 0],
    ['an integer enum', { type: 'integer', enum: [1, 2] }, 0],
    ['a typed string enum, deep in items', { items: { type: 'string', enum: ['a'] } }, 0],
  ];
  for (const [name, schema, problems] of cases) {
    it(`${name}: ${problems} problem(s)`, () => assert.equal(untypedEnums(schema).length, problems));
  }
});

describe('the OpenAPI document, for generators and contract testers', () => {
  let doc: OpenApi;
  before(() => {
    const { dataset } = validateDataset(loadDataset(join(root, 'dataset')));
    assert.ok(dataset, 'the dataset validates');
    doc = buildOpenApi(dataset);
  });

  it('types every enum, with "null" wherever null is one of its values', () => {
    assert.deepEqual(untypedEnums(doc), []);
    // the fields the contract names nullable are among them
    const summary = (doc.components.schemas.GrainSummary as Json).properties;
    for (const field of ['region', 'use_class']) {
      assert.deepEqual(summary[field].type, ['string', 'null'], field);
      assert.ok(summary[field].enum.includes(null), field);
    }
  });

  it('marks every response header required: the service always sends the headers it names', () => {
    const headers = answers(doc).flatMap(([at, r]) =>
      Object.entries((r.headers ?? {}) as Record<string, Json>).map(([name, h]) => [`${at} ${name}`, h]),
    );
    assert.ok(headers.length > 100, `${headers.length} headers`);
    assert.deepEqual(
      headers.filter(([, h]) => h.required !== true).map(([at]) => at),
      [],
    );
    const names = new Set(headers.map(([at]) => (at as string).split(' ').at(-1)));
    for (const name of ['ETag', 'X-RateLimit-Remaining', 'RateLimit', 'RateLimit-Policy', 'Retry-After'])
      assert.ok(names.has(name), name);
  });

  it("lists each error answer's codes, each under the status the catalogue gives it", () => {
    const statusOf = new Map(Object.values(ERRORS).map((e) => [e.code as string, e.status]));
    let listed = 0;
    for (const [at, r] of answers(doc)) {
      const status = Number(at.split(' ').at(-1));
      if (status < 400 || at.startsWith('HEAD ')) continue; // a HEAD's answer has no body to hold a code
      const schema = r.content?.['application/json']?.schema;
      const codes: string[] = schema?.allOf?.flatMap((s: Json) => s.properties?.code?.enum ?? []) ?? [];
      assert.ok(codes.length, `${at} lists its codes`);
      for (const code of codes) assert.equal(statusOf.get(code), status, `${at}: ${code}`);
      listed += codes.length;
    }
    assert.ok(listed > 50, `${listed} codes listed`);
    const grain = (doc.paths['/api/grains/{grain_id}'] as Json).get.responses['400'];
    assert.deepEqual(grain.content['application/json'].schema.allOf[1].properties.code.enum.sort(), [
      'bad_crop_year',
      'bad_query',
      'key_in_query',
      'repeated_key',
      'repeated_param',
    ]);
    // every operation's URL is refused past 8 KiB before it is routed (gateway/app.ts)
    for (const [at] of answers(doc)) {
      if (!at.endsWith(' 200') && !at.endsWith(' 201') && !at.endsWith(' 204')) continue;
      const op = at.slice(0, at.lastIndexOf(' '));
      const long = answers(doc).find(([other]) => other === `${op} 414`);
      assert.ok(long, `${op} declares its 414`);
      if (!op.startsWith('HEAD '))
        assert.deepEqual(long[1].content['application/json'].schema.allOf[1].properties.code.enum, ['uri_too_long']);
    }
  });

  it('gives a 304 headers and no body', () => {
    const notModified = answers(doc).filter(([at]) => at.endsWith(' 304'));
    assert.ok(notModified.length >= 10, `${notModified.length} answers`);
    for (const [at, r] of notModified) {
      assert.equal(r.content, undefined, at);
      assert.ok(Object.keys(r.headers).includes('ETag'), at);
    }
  });
});
