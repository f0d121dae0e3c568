// The reference grader (build/grading/grade.ts) on the real dataset: samples made by hand for the
// cases the pages spell out, samples that cannot be real, then, for every one of the 23 classes, a
// clean sample, a limit exactly met, one just over, a fall-through and an undetermined sample.
// The conformance suite (test/grade-suite.test.ts) holds the answers read off the pages.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  explain,
  type GradeError,
  type GradeResult,
  grade,
  type Outcome,
  parseSample,
  roundTo,
  type Sample,
} from '../build/grading/grade.ts';
import { loadDataset } from '../build/load/load.ts';
import type { CompiledRecord, Factor } from '../build/types.ts';
import { validateDataset } from './helpers/build.ts';

const root = join(import.meta.dirname, '..');

const { dataset } = validateDataset(loadDataset(join(root, 'dataset')));
assert.ok(dataset, 'the real dataset builds');
const records = new Map(dataset.grains.map((g) => [g.grain_id, g]));
const record = (id: string) => records.get(id)!;
const factorsOf = (r: CompiledRecord) => r.factor_groups.flatMap((g) => g.factors);
const judged = (f: Factor) => Object.values(f.thresholds).some((t) => t.value_type.startsWith('qualitative'));

/** A sample that meets the best grade of the ladder on every factor. */
function cleanSample(r: CompiledRecord): { sample: Sample; ladder: string[] } {
  const ladder = r.variety_tracks?.[0]?.grades ?? r.grades;
  const sample: Sample & { values: Record<string, number>; judgments: Record<string, string> } = {
    values: {},
    judgments: {},
    ...(r.variety_tracks ? { track: r.variety_tracks[0]!.track_id } : {}),
    ...(r.colour_modifier ? { colour: r.colours![0] } : {}),
    region: r.region ?? 'western',
  };
  for (const f of factorsOf(r)) {
    if (judged(f)) sample.judgments[f.factor_id] = ladder[0]!;
    if (f.is_aggregate) sample.values[f.factor_id] = 0;
    if (f.threshold_direction === 'minimum') {
      const limits = ladder.map((g) => f.thresholds[g]!).filter((t) => t.value_type === 'numeric');
      sample.values[f.factor_id] = Math.max(...limits.map((t) => t.value as number));
    }
  }
  return { sample, ladder };
}

/** The sample with a part set to `value`, and each Total that counts it set to the same. */
function withPart(r: CompiledRecord, sample: Sample, f: Factor, value: number): Sample {
  const values = { ...sample.values, [f.factor_id]: value };
  for (const t of factorsOf(r)) if (t.aggregates?.includes(f.factor_id)) values[t.factor_id] = value;
  return { ...sample, values };
}

/** A maximum part with a numeric limit at `grade` that every Total counting it allows as well. */
function partLimitedAt(
  r: CompiledRecord,
  ladder: string[],
  at: number,
): { f: Factor; limit: number; step: number } | null {
  for (const f of factorsOf(r)) {
    const cell = f.thresholds[ladder[at]!];
    const colourChange = f.fallthrough_outcomes?.some((o) => o.kind === 'colour_change');
    if (f.is_aggregate || f.threshold_direction !== 'maximum' || cell?.value_type !== 'numeric' || colourChange)
      continue;
    const limit = cell.value as number;
    const totals = factorsOf(r).filter((t) => t.aggregates?.includes(f.factor_id));
    const roomy = totals.every((t) => {
      const c = t.thresholds[ladder[at]!]!;
      return c.value_type !== 'numeric' || (c.value as number) >= limit + 1;
    });
    if (roomy && limit > 0) return { f, limit, step: 10 ** -(cell.decimals ?? 0) };
  }
  return null;
}

/** The sample without some of its values (as if they were not given). */
const without = (sample: Sample, ...ids: string[]): Sample => {
  const values = { ...sample.values };
  for (const id of ids) delete values[id];
  return { ...sample, values };
};

const outcome = (factor_id: string, kind: Outcome['kind'], grade: string, note: string | null = null): Outcome => ({
  factor_id,
  kind,
  grade,
  reason: null,
  note,
});

const ok = (r: GradeResult | GradeError): GradeResult => {
  assert.ok(!('error' in r), JSON.stringify(r));
  return r;
};

describe('grader: rules the pages spell out (hand-made samples)', () => {
  const cwrs = cleanSample(record('CWRS')).sample;
  /** The clean CWRS sample with these values changed. */
  const set = (values: Record<string, number>): Sample => ({ ...cwrs, values: { ...cwrs.values, ...values } });
  const cases: [name: string, id: string, sample: Sample, expected: Partial<GradeResult>][] = [
    ['CWRS clean', 'CWRS', cwrs, { result: 'grade', grade: 'No. 1 CWRS' }],
    [
      'CWRS ergot exactly 0.04 (inclusive)',
      'CWRS',
      set({ ergot: 0.04, total_foreign_material: 0.04 }),
      { grade: 'No. 1 CWRS' },
    ],
    [
      'CWRS ergot 0.05: feed (0.10)',
      'CWRS',
      set({ ergot: 0.05, total_foreign_material: 0.05 }),
      {
        grade: 'CW Feed',
        limiting: [{ factor_id: 'ergot', value: 0.05, limit: 0.04, grade: 'No. 3 CWRS' }],
      },
    ],
    ['CWRS protein 9.96 rounds to 10.0', 'CWRS', set({ minimum_protein: 9.96 }), { grade: 'No. 1 CWRS' }],
    ['CWRS protein 9.94 rounds to 9.9', 'CWRS', set({ minimum_protein: 9.94 }), { grade: 'No. 2 CWRS' }],
    [
      'CWRS protein not given',
      'CWRS',
      without(cwrs, 'minimum_protein'),
      {
        result: 'undetermined',
        missing: ['minimum_protein'],
      },
    ],
    [
      'CWRS test weight in g/0.5 L',
      'CWRS',
      { ...without(cwrs, 'minimum_test_weight'), alt_values: { minimum_test_weight: 350 } },
      { grade: 'No. 2 CWRS' },
    ],
    [
      'CWRS soundness judged feed on account of mildew: floor No. 3',
      'CWRS',
      {
        ...cwrs,
        judgments: { ...cwrs.judgments, degree_of_soundness: 'CW Feed' },
        accounts: { degree_of_soundness: 'mildew' },
      },
      { grade: 'No. 3 CWRS' },
    ],
    [
      'CWRS soundness judged feed otherwise',
      'CWRS',
      { ...cwrs, judgments: { ...cwrs.judgments, degree_of_soundness: 'CW Feed' } },
      { grade: 'CW Feed' },
    ],
    [
      'CWRS stones 1%: rejected, the grade from the other factors',
      'CWRS',
      set({ stones: 1, total_foreign_material: 1 }),
      {
        result: 'fallthrough',
        grade: 'Wheat, Rejected No. 2 CWRS, Account Stones',
      },
    ],
    [
      'CWRS shrunken and broken not totalled: the sum of its parts',
      'CWRS',
      {
        ...without(cwrs, 'total_shrunken_and_broken'),
        values: { ...without(cwrs, 'total_shrunken_and_broken').values, shrunken: 4, broken: 5 },
      },
      {
        grade: 'No. 3 CWRS',
        limiting: [{ factor_id: 'total_shrunken_and_broken', value: 9, limit: 8, grade: 'No. 2 CWRS' }],
      },
    ],
    [
      'CWRS total sprouted not given: it counts sprouted kernels with no row',
      'CWRS',
      without(cwrs, 'total_sprouted'),
      {
        result: 'undetermined',
        missing: ['total_sprouted'],
      },
    ],
    [
      'CWRS contrasting classes 12%, of which amber durum and CWSP 3%: feed',
      'CWRS',
      set({
        contrasting_classes: 12,
        total_wheats_of_other_classes_or_varieties_and_contrasting_classes: 12,
        amber_durum_and_cwsp: 3,
      }),
      {
        grade: 'CW Feed',
      },
    ],
    [
      "CWRS contrasting classes 12%, the partial limit's parts not given",
      'CWRS',
      set({ contrasting_classes: 12, total_wheats_of_other_classes_or_varieties_and_contrasting_classes: 12 }),
      {
        result: 'undetermined',
        missing: ['amber_durum_and_cwsp'],
      },
    ],
    [
      'CWRS amber durum and CWSP 11%: past feed, the "Over 10%" outcome',
      'CWRS',
      set({
        contrasting_classes: 11,
        total_wheats_of_other_classes_or_varieties_and_contrasting_classes: 11,
        amber_durum_and_cwsp: 11,
      }),
      {
        result: 'fallthrough',
        outcomes: [
          outcome('contrasting_classes', 'sample', 'Wheat, Sample CW Account Admixture'),
          outcome(
            'total_wheats_of_other_classes_or_varieties_and_contrasting_classes',
            'sample',
            'Wheat, Sample CW Account Admixture',
          ),
        ],
      },
    ],
    [
      'CWRS stones 3%: salvage',
      'CWRS',
      set({ stones: 3, total_foreign_material: 3 }),
      { grade: 'Wheat, Sample Salvage' },
    ],
    [
      'CWRS two factors past feed: both outcomes, in page order',
      'CWRS',
      set({ ergot: 0.2, fireburnt: 3, total_foreign_material: 0.2 }),
      {
        outcomes: [
          outcome('ergot', 'sample', 'Wheat, Sample CW Account Ergot'),
          outcome('fireburnt', 'sample', 'Wheat, Sample CW Account Fireburnt'),
        ],
      },
    ],
  ];
  for (const [name, id, sample, expected] of cases) {
    it(name, () => {
      const r = ok(grade(record(id), sample));
      for (const [k, v] of Object.entries(expected))
        assert.deepEqual(r[k as keyof GradeResult], v, `${k} of ${JSON.stringify(r)}`);
    });
  }

  it('canola stones past the limit: the outcome depends on the region', () => {
    const { sample } = cleanSample(record('CANOLA'));
    const stony = {
      ...withPart(record('CANOLA'), sample, factorsOf(record('CANOLA')).find((f) => f.factor_id === 'stones')!, 1),
    };
    assert.deepEqual(ok(grade(record('CANOLA'), { ...stony, region: undefined })).missing, ['region']);
    assert.match(
      ok(grade(record('CANOLA'), { ...stony, region: 'western' })).grade!,
      /^Canola, Rejected No\. \d Canada Account Stones$/,
    );
    assert.equal(
      ok(grade(record('CANOLA'), { ...stony, region: 'eastern' })).grade,
      'Canola, Sample Canada Account Stones',
    );
  });

  it('corn: the colour names the grade, and other classes past 5% make it Mixed', () => {
    const { sample } = cleanSample(record('CORN_CW'));
    assert.equal(ok(grade(record('CORN_CW'), sample)).grade, 'No. 1 CW Yellow');
    assert.deepEqual(ok(grade(record('CORN_CW'), { ...sample, colour: undefined })).missing, ['colour']);
    const mixed = ok(grade(record('CORN_CW'), { ...sample, values: { ...sample.values, other_classes: 7 } }));
    assert.equal(mixed.grade, 'No. 1 CW Mixed');
  });

  it('soybeans: a Mixed sample is graded without the other colours tolerance (footnote 2)', () => {
    const r = record('SOYBEANS');
    const { sample } = cleanSample(r);
    const mixed = ok(grade(r, { ...sample, colour: 'Mixed', values: { ...sample.values, other_colours: 40 } }));
    assert.equal(mixed.grade, 'No. 1 Canada Mixed');
    const yellow = ok(grade(r, { ...sample, values: { ...sample.values, other_colours: 4 } }));
    assert.equal(yellow.grade, 'No. 3 Canada Yellow', 'within the colour, the tolerance grades');
    const wrong = grade(r, { ...sample, colour: 'Purple' });
    assert.deepEqual(wrong, { error: 'must be one of Yellow, Green, Brown, Black, Mixed', field: 'colour' });
  });

  it('the answer as a table (explain) draws the factors grade graded on: colour rules and footnotes applied', () => {
    for (const [id, colour, factor, value, expected] of [
      // past the lowest grade's other colours, the sample is Mixed and the tolerance set aside (footnote 2)
      ['SOYBEANS', undefined, 'other_colours', 40, 'No. 1 Canada Mixed'],
      // corn's other classes past 5% make it Mixed: the factor is not a limit of the grade found
      ['CORN_CW', undefined, 'other_classes', 7, 'No. 1 CW Mixed'],
    ] as const) {
      const r = record(id);
      const { sample: clean, ladder } = cleanSample(r);
      const sample = { ...clean, ...(colour ? { colour } : {}), values: { ...clean.values, [factor]: value } };
      const result = ok(grade(r, sample));
      assert.equal(result.grade, expected, id);
      const table = explain(r, sample, result)!;
      assert.equal(table.at, ladder[0], id);
      const ids = table.rows.map((row) => row.factor_id);
      assert.ok(!ids.includes(factor), `${id}: ${factor} is set aside, as grade set it aside`);
      assert.equal(ids.length, factorsOf(r).length - 1, id);
      // the grade found is the best: every cell drawn at it is met, none decided
      const unmet = table.rows.filter((row) => row.at?.state !== 'met' || row.deciding !== null);
      assert.deepEqual(unmet, [], id);
    }
  });

  it('barley hulless: a Sample grade says to add "Hulless" (footnote 1)', () => {
    const r = record('BARLEY_GP_CW');
    const { sample } = cleanSample(r);
    const hulless = {
      ...sample,
      track: 'hulless',
      values: { ...sample.values, minimum_test_weight_cw: 72 }, // the hulless ladder's minimum
      judgments: Object.fromEntries(Object.keys(sample.judgments!).map((k) => [k, 'No. 1 CW Hulless'])),
    };
    const f = factorsOf(r).find((x) => x.factor_id === 'ergot')!;
    const out = ok(grade(r, withPart(r, hulless, f, 0.5)));
    const note = 'add “Hulless” to the Sample grade name (footnote 1)';
    assert.deepEqual(out.outcomes, [outcome('ergot', 'sample', 'Barley, Sample CW Account Ergot', note)]);
    assert.deepEqual([out.grade, out.note], ['Barley, Sample CW Account Ergot', note], 'the note beside the grade');
    const covered = ok(grade(r, withPart(r, sample, f, 0.5)));
    assert.deepEqual(covered.outcomes, [outcome('ergot', 'sample', 'Barley, Sample CW Account Ergot')]);
    assert.equal(covered.note, null);
  });

  it('barley: the variety track is needed', () => {
    const { sample } = cleanSample(record('BARLEY_GP_CW'));
    assert.equal(ok(grade(record('BARLEY_GP_CW'), sample)).grade, 'No. 1 CW');
    assert.deepEqual(ok(grade(record('BARLEY_GP_CW'), { ...sample, track: undefined })).missing, ['track']);
  });

  it('barley other cereal grains past what the page states: no grade, and the reason in its own field', () => {
    const r = record('BARLEY_GP_CW');
    const { sample } = cleanSample(r);
    const f = factorsOf(r).find((x) => x.factor_id === 'other_cereal_grains')!;
    const out = ok(grade(r, withPart(r, sample, f, 60)));
    assert.equal(out.result, 'fallthrough');
    assert.equal(out.grade, null);
    assert.match(out.reason!, /^not stated by the authority: Other cereal grains past the No\. 2 CW limit/);
    assert.deepEqual(
      out.outcomes.map((o) => [o.factor_id, o.kind, o.grade]),
      [
        ['other_cereal_grains', 'not_stated', null],
        ['total_foreign_material', 'not_stated', null],
      ],
    );
  });

  it('a stated outcome is the grade even where another factor has none stated', () => {
    const r = record('BARLEY_GP_CW');
    const { sample } = cleanSample(r);
    const oats = factorsOf(r).find((x) => x.factor_id === 'wild_oats')!;
    const out = ok(
      grade(r, {
        ...withPart(r, sample, oats, 3),
        values: { ...sample.values, wild_oats: 3, other_cereal_grains: 60, total_foreign_material: 63 },
      }),
    );
    assert.equal(out.result, 'fallthrough');
    assert.equal(out.grade, 'Mixed Grain CW Barley', JSON.stringify(out));
    assert.equal(out.reason, null);
  });

  const malformed: [unknown, string][] = [
    [null, '(sample)'],
    [[], '(sample)'],
    [{ values: { ergot: 'x' } }, 'values.ergot'],
    [{ values: { ergot: Number.NaN } }, 'values.ergot'],
    [{ values: { nope: 1 } }, 'values.nope'],
    [{ values: [] }, 'values'],
    [{ judgments: { variety: 'No. 9 CWRS' } }, 'judgments.variety'],
    [{ track: 'hulless' }, 'track'],
    [{ region: 'north' }, 'region'],
    [{ exclude: ['nope'] }, 'exclude[0]'],
    [{ colour: 5 }, 'colour'],
    [{ valeus: {} }, 'valeus'],
  ];
  for (const [sample, field] of malformed) {
    it(`a malformed sample is an error naming ${field}, never a throw`, () => {
      const r = grade(record('CWRS'), sample);
      assert.ok('error' in r, JSON.stringify(r));
      assert.equal(r.field, field);
    });
  }

  const impossible: [sample: Sample, field: string, message: RegExp][] = [
    [{ values: { ergot: -1 } }, 'values.ergot', /^Ergot cannot be -1: it must be from 0 to 100 %$/],
    [{ values: { minimum_protein: 250 } }, 'values.minimum_protein', /^Minimum protein cannot be 250: .*0 to 100 %/],
    [{ values: { minimum_protein: 100.01 } }, 'values.minimum_protein', /from 0 to 100 %/],
    [{ values: { minimum_test_weight: 250 } }, 'values.minimum_test_weight', /more than 0 and at most 100 kg\/hL/],
    [{ values: { minimum_test_weight: 0 } }, 'values.minimum_test_weight', /more than 0 and at most 100 kg\/hL/],
    [{ alt_values: { minimum_test_weight: 501 } }, 'alt_values.minimum_test_weight', /at most 500 g\/0\.5 L/],
    [
      { values: { amber_durum_and_cwsp: 101 } },
      'values.amber_durum_and_cwsp',
      /\(amber durum and cwsp\) cannot be 101: it must be from 0 to 100 %/,
    ],
  ];
  for (const [sample, field, message] of impossible) {
    it(`a value no sample can have is refused: ${JSON.stringify(sample)}`, () => {
      const r = grade(record('CWRS'), sample);
      assert.ok('error' in r, JSON.stringify(r));
      assert.equal(r.field, field);
      assert.match(r.error, message);
    });
  }

  it('the edges of what a factor can hold are graded', () => {
    const cwrs = cleanSample(record('CWRS')).sample;
    for (const values of [{ ergot: 0 }, { minimum_protein: 100 }, { minimum_test_weight: 100 }]) {
      const r = grade(record('CWRS'), { ...cwrs, values: { ...cwrs.values, ...values } });
      assert.ok(!('error' in r), JSON.stringify(r));
    }
  });

  const texts: [text: string, line: number, column: number][] = [
    ['{', 1, 2],
    ['', 1, 1],
    ['{"values": {"ergot": 0.05}}\n}', 2, 1],
    ['{\n  "values": {"ergot": .05}\n}', 2, 23],
    ['{"colour": "Yel\\qow"}', 1, 17],
    ['{"track": "covered"} x', 1, 22],
    ['{"values": {"ergot": 0.05', 1, 26],
    ['["a", "b" "c"]', 1, 11],
  ];
  for (const [text, line, column] of texts) {
    it(`a sample that is not JSON is an error naming line ${line}, column ${column}: ${JSON.stringify(text)}`, () => {
      const r = parseSample(text);
      assert.ok('error' in r, JSON.stringify(r));
      assert.deepEqual([r.line, r.column], [line, column]);
      assert.match(r.error, new RegExp(`^not JSON at line ${line}, column ${column}: `));
    });
  }
  it('a sample that is JSON is parsed', () => {
    assert.deepEqual(parseSample('{"values": {"ergot": 0.05}}'), { sample: { values: { ergot: 0.05 } } });
  });

  it('rounds as the value is written', () => {
    assert.deepEqual([roundTo(1.005, 2), roundTo(0.045, 2), roundTo(9.95, 1), roundTo(72.5, 0)], [1.01, 0.05, 10, 73]);
  });
});

describe('grader: every class', () => {
  for (const r of dataset.grains) {
    const { sample, ladder } = cleanSample(r);
    const best = r.colour_modifier ? `${ladder[0]} Yellow` : ladder[0];
    describe(r.grain_id, () => {
      it('a clean sample gets the best grade', () => {
        assert.deepEqual(ok(grade(r, sample)), {
          result: 'grade',
          grade: best,
          reason: null,
          note: null,
          outcomes: [],
          limiting: [],
          missing: [],
          judgments_needed: [],
        });
      });
      const part = partLimitedAt(r, ladder, 0);
      it('a limit exactly met keeps the grade; just over it does not', () => {
        assert.ok(part, 'a maximum factor with a numeric limit at the best grade');
        assert.equal(ok(grade(r, withPart(r, sample, part.f, part.limit))).grade, best);
        const over = ok(grade(r, withPart(r, sample, part.f, roundTo(part.limit + part.step, 6))));
        assert.notEqual(over.grade, best);
        const limited = over.limiting.some((l) => l.factor_id === part.f.factor_id);
        assert.ok(limited, `${part.f.factor_id} limits ${JSON.stringify(over)}`);
      });
      it('past the lowest grade: the fall-through outcomes', () => {
        const f = factorsOf(r).find((x) => {
          const cell = x.thresholds[ladder.at(-1)!];
          const change = x.fallthrough_outcomes?.some((o) => o.kind === 'colour_change');
          return !x.is_aggregate && x.threshold_direction === 'maximum' && cell?.value_type === 'numeric' && !change;
        });
        assert.ok(f, 'a maximum factor with a limit at the lowest grade');
        const limit = f.thresholds[ladder.at(-1)!]!.value as number;
        const out = ok(grade(r, withPart(r, sample, f, limit + 1)));
        assert.equal(out.result, 'fallthrough', JSON.stringify(out));
        assert.ok(out.outcomes.length >= 1, 'an outcome');
        assert.ok(
          out.limiting.some((l) => l.factor_id === f.factor_id),
          'the failing factor is named',
        );
      });
      it('undetermined without what decides it', () => {
        const summable = (f: Factor) => f.parts_stated === 'all' && f.unlisted_parts?.length === 0;
        const need = factorsOf(r).find(
          (f) => f.threshold_direction === 'minimum' || judged(f) || (f.is_aggregate && !summable(f)),
        )!;
        const values = { ...sample.values };
        const judgments = { ...sample.judgments };
        delete values[need.factor_id];
        delete judgments[need.factor_id];
        const out = ok(grade(r, { ...sample, values, judgments }));
        assert.equal(out.result, 'undetermined');
        assert.ok(out.missing.includes(need.factor_id), JSON.stringify(out));
      });
    });
  }
});
