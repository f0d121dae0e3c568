import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadDataset } from '../build/load/load.ts';
import { formatError } from '../build/validate/validate.ts';
import { validateDataset } from './helpers/build.ts';
import { baseChangelog, baseGrain, writeDataset } from './helpers/dataset.ts';

const validate = (grain: string, extra: { changelog?: string; index?: string } = {}) =>
  validateDataset(loadDataset(writeDataset({ grains: { TEST: grain }, ...extra })));

const replace = (from: string, to: string) => {
  const base = baseGrain();
  assert.ok(base.includes(from), `fixture has ${from}`);
  return base.replace(from, to);
};

describe('dataset validation', () => {
  it('accepts the base file', () => {
    const r = validate(baseGrain());
    assert.deepEqual(r.errors.map(formatError), []);
    assert.equal(r.dataset?.grains[0]?.factor_groups[0]?.factors.length, 5);
  });

  it('reports a misspelt field name and a bad cell of the same file in one run', () => {
    const grain = replace('thresholds: [0.04, 0.04, 0.10]', 'thresholds: [0.04, 0.04, 0.1x]').replace(
      'fallthrough: Wheat, Sample Account Ergot',
      'falthrough: Wheat, Sample Account Ergot',
    );
    const r = validate(grain);
    assert.deepEqual(
      r.errors.map((e) => [e.line, e.field]),
      [
        [36, 'factor_groups[0].factors[2].thresholds[2]'],
        [37, 'factor_groups[0].factors[2].falthrough'],
      ],
    );
    assert.match(r.errors[0]!.message, /cannot read "0\.1x"/);
    assert.match(r.errors[1]!.message, /unknown field "falthrough"/);
    assert.equal(r.dataset, undefined);
  });

  // Each case: one slip an editor could make, and the located message they must see.
  const cases: { name: string; grain: string; line: number; field: string; message: RegExp }[] = [
    {
      name: 'a row with a cell missing',
      grain: replace('thresholds: [0.04, 0.04, 0.10]', 'thresholds: [0.04, 0.10]'),
      line: 36,
      field: 'factor_groups[0].factors[2].thresholds',
      message: /has 2 cells but the grain has 3 grades/,
    },
    {
      name: 'an aggregate naming no sibling',
      grain: replace('aggregates: [ergot, stones]', 'aggregates: [ergot, stonez]'),
      line: 47,
      field: 'factor_groups[0].factors[4].aggregates[1]',
      message: /"stonez" is not a factor of the group "grading_factors"/,
    },
    {
      name: 'a footnote_ref to no footnote',
      grain: replace('footnote_ref: "1"', 'footnote_ref: "7"'),
      line: 25,
      field: 'factor_groups[0].factors[0].footnote_ref',
      message: /there is no footnote "7"/,
    },
    {
      name: 'a floor grade that is not a grade',
      grain: replace('floor_grade: No. 2 T', 'floor_grade: No. 3 T'),
      line: 13,
      field: 'grade_floor_rules[0].floor_grade',
      message: /"No. 3 T" is not one of the grades/,
    },
    {
      name: 'variety tracks that do not share out the grades',
      grain: replace(
        'grades: [No. 1 T, No. 2 T, T Feed]\n',
        'grades: [No. 1 T, No. 2 T, T Feed]\nvariety_tracks:\n' +
          '  - {track_id: a, grades: [No. 1 T, No. 2 T]}\n  - {track_id: b, grades: [No. 2 T]}\n',
      ),
      line: 11,
      field: 'variety_tracks',
      message: /"No. 2 T" is in 2/,
    },
    {
      name: 'a factor id used twice',
      grain: replace('factor_id: stones', 'factor_id: ergot').replace(
        'aggregates: [ergot, stones]',
        'aggregates: [ergot]',
      ),
      line: 38,
      field: 'factor_groups[0].factors[3].factor_id',
      message: /"ergot" is used twice/,
    },
    {
      name: 'a maximum that gets stricter at a lower grade',
      grain: replace('thresholds: [0.03, 0.06, 0.10]', 'thresholds: [0.03, 0.06, 0.01]'),
      line: 40,
      field: 'factor_groups[0].factors[3].thresholds',
      message: /maximum for "T Feed" \(0.01\) is stricter than for the higher grade "No. 2 T"/,
    },
    {
      name: 'a minimum that gets higher at a lower grade',
      grain: replace('thresholds: [75 (365), 72 (350), 65 (315)]', 'thresholds: [75 (365), 77 (350), 65 (315)]'),
      line: 32,
      field: 'factor_groups[0].factors[1].thresholds',
      message: /minimum for "No. 2 T" \(77\) is stricter/,
    },
    {
      name: 'a waiver on a row that needs none',
      grain: replace(
        '        fallthrough: Wheat, Sample Account Ergot',
        '        fallthrough: Wheat, Sample Account Ergot\n        monotonic_waiver: the authority says so',
      ),
      line: 38,
      field: 'factor_groups[0].factors[2].monotonic_waiver',
      message: /waiver is not needed/,
    },
    {
      name: 'a misspelt field',
      grain: replace('unit_alt: g/0.5 L', 'unit_alts: g/0.5 L'),
      line: 30,
      field: 'factor_groups[0].factors[1].unit_alts',
      message: /unknown field "unit_alts" \(a misspelling\?\)/,
    },
    {
      name: 'a kind outside the list',
      grain: replace('kind: wheat', 'kind: wheet'),
      line: 3,
      field: 'kind',
      message: /must be one of: "wheat", "cereal", "oilseed", "pulse"/,
    },
    {
      name: 'a number that cannot be read',
      grain: replace('thresholds: [0.04, 0.04, 0.10]', 'thresholds: [0.04, 0.O4, 0.10]'),
      line: 36,
      field: 'factor_groups[0].factors[2].thresholds[1]',
      message: /No. 2 T: cannot read "0.O4" as a maximum value/,
    },
    {
      name: 'a number not written as printed',
      grain: replace('thresholds: [0.04, 0.04, 0.10]', 'thresholds: [0.04, 4e-2, 0.10]'),
      line: 36,
      field: 'factor_groups[0].factors[2].thresholds[1]',
      message: /exactly as the authority prints it .* not "4e-2"/,
    },
    {
      name: 'a timestamp without a time',
      grain: replace('last_scraped: 2026-04-12T00:00:00Z', 'last_scraped: 2026-04-12'),
      line: 8,
      field: 'last_scraped',
      message: /must be an ISO 8601 UTC timestamp/,
    },
    {
      name: 'a required field left out',
      grain: replace('fallthrough_label: Grade, if specs for T Feed not met\n', ''),
      line: 1,
      field: '(top level)',
      message: /the field "fallthrough_label" is missing/,
    },
    {
      name: 'a condition whose grade is not in the fall-through',
      grain: replace('grade: "Wheat, Sample Salvage"', 'grade: "Wheat, Sample Salvaged Goods"'),
      line: 44,
      field: 'factor_groups[0].factors[3].fallthrough_conditions[1].grade',
      message: /does not appear in the fallthrough text/,
    },
    {
      name: 'broken YAML',
      grain: replace('grades: [No. 1 T, No. 2 T, T Feed]', 'grades: [No. 1 T, No. 2 T, T Feed'),
      line: 10,
      field: '(syntax)',
      message: /./,
    },
    {
      name: 'a file whose id is not its name',
      grain: replace('grain_id: TEST', 'grain_id: TSET'),
      line: 1,
      field: 'grain_id',
      message: /is "TSET" but the file is named TEST.yaml/,
    },
  ];

  for (const c of cases) {
    it(`reports ${c.name} at its line and field, and publishes nothing`, () => {
      const r = validate(c.grain);
      assert.equal(r.dataset, undefined);
      const e = r.errors.find((x) => x.field === c.field);
      assert.ok(e, `expected an error on ${c.field}; got:\n${r.errors.map(formatError).join('\n')}`);
      assert.equal(e.file, 'grains/TEST.yaml');
      assert.equal(e.line, c.line, formatError(e));
      assert.match(e.message, c.message);
    });
  }

  it('accepts a waiver with a reason on a row that needs it', () => {
    const grain = replace('thresholds: [0.03, 0.06, 0.10]', 'thresholds: [0.03, 0.06, 0.01]').replace(
      '        fallthrough: 2.5% or less',
      '        monotonic_waiver: printed so by the authority; confirmed with the poster edition\n' +
        '        fallthrough: 2.5% or less',
    );
    assert.deepEqual(validate(grain).errors, []);
  });

  it('reports every error of a run at once', () => {
    const grain = replace('kind: wheat', 'kind: wheet')
      .replace('footnote_ref: "1"', 'footnote_ref: "7"')
      .replace('thresholds: [0.04, 0.04, 0.10]', 'thresholds: [0.04]');
    const r = validate(grain, { changelog: baseChangelog(['TEST', 'NOPE']) });
    // the schema error stops the grain's cross-checks; the changelog is checked all the same
    assert.deepEqual(
      r.errors.map((e) => `${e.file}:${e.field}`),
      ['changelog.yaml:entries[0].grain_ids_affected[1]', 'grains/TEST.yaml:kind'],
    );
    const r2 = validate(
      replace('footnote_ref: "1"', 'footnote_ref: "7"').replace('thresholds: [0.04, 0.04, 0.10]', 'thresholds: [0.04]'),
    );
    assert.deepEqual(
      r2.errors.map((e) => e.field),
      ['factor_groups[0].factors[0].footnote_ref', 'factor_groups[0].factors[2].thresholds'],
    );
  });

  it('checks the changelog and the index', () => {
    const twice = baseChangelog(['TEST']) + baseChangelog(['TEST']).replace('entries:\n', '');
    const r = validate(baseGrain(), { changelog: twice, index: 'grains: [TEST, TEST]\n' });
    assert.deepEqual(r.errors.map(formatError), [
      'changelog.yaml:8:9: entries[1].id: the id "first" is used twice',
      'index.yaml:1:16: grains[1]: "TEST" is listed twice',
    ]);
  });

  it('names a grain file that index.yaml lists but that does not exist', () => {
    const r = validate(baseGrain(), { index: 'grains: [TEST, MISSING]\n', changelog: baseChangelog(['TEST']) });
    assert.deepEqual(r.errors.map(formatError), [
      'grains/MISSING.yaml:1:1: (file): the file named in index.yaml does not exist',
    ]);
  });
});
