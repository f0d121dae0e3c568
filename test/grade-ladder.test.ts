// Limits loosen down a grade ladder (docs/grading.md "The rules"): the build refuses a row whose
// judgement cell would be stricter than a cell above it, and the grader never asks for a judgement
// that a stricter limit the measured value meets already answers (a property, over every class
// whose table has judgement cells).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { type Context, grade, metAbove } from '../build/grading/grade.ts';
import { loadDataset } from '../build/load/load.ts';
import type { CompiledRecord, Factor } from '../build/types.ts';
import { formatError } from '../build/validate/validate.ts';
import { validateDataset } from './helpers/build.ts';
import { baseGrain, writeDataset } from './helpers/dataset.ts';
import { cleanSample } from './helpers/fallthroughs.ts';

const ERGOT = 'thresholds: [0.04, 0.04, 0.10]';
const judgement = '{type: qualitative_judgment, value: Consider overall appearance}';
const validate = (grain: string) => validateDataset(loadDataset(writeDataset({ grains: { TEST: grain } })));

describe('the build checks the ladder where the grader relies on it', () => {
  const cases: [name: string, grain: string, field: string, line: number, message: RegExp | null][] = [
    [
      'a judgement below a stricter limit',
      baseGrain().replace(ERGOT, `thresholds: [0.04, ${judgement}, 0.10]`),
      '',
      0,
      null,
    ],
    [
      'a judgement below a cell with no limit',
      baseGrain().replace(ERGOT, `thresholds: [No limit, ${judgement}, 0.10]`),
      'factor_groups[0].factors[2].thresholds',
      36,
      /the judgement for "No. 2 T" follows "No. 1 T", which has no limit/,
    ],
    [
      'a limit past a judgement that tightens the ladder',
      baseGrain().replace(ERGOT, `thresholds: [0.04, ${judgement}, 0.03]`),
      'factor_groups[0].factors[2].thresholds',
      36,
      /maximum for "T Feed" \(0.03\) is stricter than for the higher grade "No. 1 T"/,
    ],
    [
      'a waiver on a row with a judgement cell',
      baseGrain()
        .replace(ERGOT, `thresholds: [0.04, ${judgement}, 0.03]`)
        .replace('Account Ergot', 'Account Ergot\n        monotonic_waiver: printed so'),
      'factor_groups[0].factors[2].monotonic_waiver',
      38,
      /the grader answers a judgement cell from the limits above it: no waiver/,
    ],
  ];
  for (const [name, grain, field, line, message] of cases) {
    it(`${message ? 'refuses' : 'accepts'} ${name}`, () => {
      const r = validate(grain);
      if (!message) {
        assert.deepEqual(r.errors.map(formatError), []);
        const cell = r.dataset!.grains[0]!.factor_groups[0]!.factors[2]!.thresholds['No. 2 T']!;
        assert.equal(cell.value_type, 'qualitative_judgment');
        return;
      }
      assert.equal(r.dataset, undefined);
      const e = r.errors.find((x) => x.field === field);
      assert.ok(e, r.errors.map(formatError).join('\n'));
      assert.deepEqual([e.file, e.line], ['grains/TEST.yaml', line]);
      assert.match(e.message, message);
    });
  }
});

const { dataset } = validateDataset(loadDataset(join(import.meta.dirname, '..', 'dataset')));
const factorsOf = (r: CompiledRecord) => r.factor_groups.flatMap((g) => g.factors);
const hasJudgementCell = (f: Factor) =>
  Object.values(f.thresholds).some((t) => t.value_type === 'qualitative_judgment');
const judgedClasses = dataset!.grains.filter((r) => factorsOf(r).some(hasJudgementCell));

describe('the grader asks for a judgement only where no stricter limit answers it', () => {
  it('the dataset has classes with judgement cells to check', () => {
    assert.deepEqual(
      judgedClasses.map((r) => r.grain_id),
      ['CWAD', 'CWES'],
    );
  });

  for (const r of judgedClasses) {
    it(`${r.grain_id}: never a judgement that a stricter measured limit answers`, () => {
      const base = cleanSample(r);
      const numeric = factorsOf(r).filter((f) => f.threshold_direction === 'maximum' && !f.is_aggregate);
      const judgedIds = factorsOf(r)
        .filter(hasJudgementCell)
        .map((f) => f.factor_id);
      const value = fc.oneof(fc.constant(undefined), fc.double({ min: 0, max: 12, noNaN: true }));
      const sample = fc.record({
        judged: fc.tuple(...judgedIds.map(() => value)),
        other: fc.tuple(fc.constantFrom(...numeric), fc.double({ min: 0, max: 20, noNaN: true })),
      });
      let asked = 0;
      fc.assert(
        fc.property(sample, ({ judged, other }) => {
          const values: Record<string, number> = { ...base.values, [other[0].factor_id]: other[1] };
          const judgments = { ...base.judgments };
          judgedIds.forEach((id, i) => {
            delete judgments[id];
            if (judged[i] === undefined) delete values[id];
            else values[id] = judged[i]!;
          });
          const s = { ...base, values, judgments };
          const result = grade(r, s);
          if ('error' in result) return;
          for (const j of result.judgments_needed) {
            asked++;
            const x: Context = { record: r, sample: s, ladder: r.grades, factors: [], byId: new Map() };
            const f = factorsOf(r).find((g) => g.factor_id === j.factor_id)!;
            assert.equal(metAbove(x, f, r.grades.indexOf(j.grade)), undefined, JSON.stringify({ s, j }));
          }
        }),
        { numRuns: 500, seed: 28 },
      );
      assert.ok(asked > 0, 'some samples do need a judgement');
    });
  }

  it('a value within a stricter limit answers the judgement cell; one past them asks for it', () => {
    const r = judgedClasses.find((c) => c.grain_id === 'CWES')!;
    const base = cleanSample(r);
    const judgments = { ...base.judgments };
    for (const id of ['smudge', 'total_smudge_and_blackpoint']) delete judgments[id];
    const at = (smudge: number) =>
      grade(r, {
        ...base,
        judgments,
        values: { ...base.values, minimum_test_weight: 73, smudge, total_smudge_and_blackpoint: 1 },
      });
    assert.deepEqual(
      [1, 1.4, 1.5].map((v) => {
        const out = at(v);
        return 'error' in out ? out : [out.grade, out.judgments_needed.map((j) => j.grade)];
      }),
      [
        ['No. 2 CWES', []],
        ['No. 2 CWES', []],
        [null, ['No. 2 CWES']],
      ],
    );
  });
});
