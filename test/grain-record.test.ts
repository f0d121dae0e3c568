// The steps of a grain file's cross-checks (build/validate/grain-record.ts, monotonic.ts), each
// called on its own: a table of source values and the problems, at their paths, that each gives.
// test/dataset-validation.test.ts holds the same rules through a whole dataset and its messages.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import type { Problem } from '../build/load/load.ts';
import type { Factor, SourceGrain } from '../build/types.ts';
import { ladderProblems, rowReferenceProblems, rowThresholds, ruleProblems } from '../build/validate/grain-record.ts';
import { waiverProblems } from '../build/validate/monotonic.ts';
import { baseGrain } from './helpers/dataset.ts';

const base = parse(baseGrain()) as SourceGrain;
const grain = (change: Partial<SourceGrain>): SourceGrain => ({ ...base, ...change });
type Row = SourceGrain['factor_groups'][number]['factors'][number];
const row = (change: Partial<Row>): Row => ({ factor_id: 'ergot', factor_label: 'Ergot', thresholds: [], ...change });
const where = (problems: Problem[]) => problems.map((p) => p.at.join('.'));

describe('a grain file, step by step', () => {
  it('its ladders: each grade once, the tracks sharing them out, floors among them', () => {
    const cases: [string, Partial<SourceGrain>, string[]][] = [
      ['the base grain', {}, []],
      ['a grade twice', { grades: ['No. 1 T', 'No. 2 T', 'No. 2 T', 'T Feed'] }, ['grades']],
      [
        'a track with a grade that is none',
        { variety_tracks: [{ track_id: 'a', grades: ['No. 1 T', 'No. 2 T', 'T Feed', 'No. 9'] }] } as never,
        ['variety_tracks.0.grades.3'],
      ],
      [
        'two tracks sharing a grade',
        {
          variety_tracks: [
            { track_id: 'a', grades: ['No. 1 T', 'T Feed'] },
            { track_id: 'b', grades: ['No. 2 T', 'T Feed'] },
          ],
        } as never,
        ['variety_tracks'],
      ],
      [
        'a floor at no grade',
        { grade_floor_rules: [{ ...base.grade_floor_rules![0]!, floor_grade: 'No. 5' }] },
        ['grade_floor_rules.0.floor_grade'],
      ],
    ];
    for (const [what, change, at] of cases) assert.deepEqual(where(ladderProblems(grain(change))), at, what);
  });

  it("a row's cells: one a grade, each read by the cell grammar", () => {
    const grades = base.grades;
    // a cell's text as the editor typed it, which the grammar reads a number's decimals from
    const typed = (cells: unknown[]) => (path: (string | number)[]) => String(cells[path[0] as number]);
    const ok = rowThresholds(row({ thresholds: [0.04, 0.04, 0.1] }), grades, typed([0.04, 0.04, 0.1]));
    assert.deepEqual(ok.problems, []);
    assert.deepEqual(Object.keys(ok.thresholds), grades);
    const cases: [unknown[], string[]][] = [
      [[0.04, 0.1], ['thresholds']],
      [[0.04, 'some text no grammar reads', 0.1], ['thresholds.1']],
    ];
    for (const [cells, at] of cases)
      assert.deepEqual(where(rowThresholds(row({ thresholds: cells as never }), grades, typed(cells)).problems), at);
  });

  it("what a row names: a Total's parts, its footnote, its fall-through's grades", () => {
    const group = { group_id: 'g', factorIds: new Set(['ergot', 'stones']) };
    const footnotes = { '1': 'A footnote.' };
    const cases: [string, Partial<Row>, string[]][] = [
      ['a plain row', {}, []],
      ['a Total with its parts said', { aggregates: ['stones'], unlisted_parts: [], parts_stated: 'all' }, []],
      ['a Total that does not say its parts', { aggregates: ['stones'] }, ['aggregates']],
      ['parts on a row that is no Total', { unlisted_parts: [] }, ['unlisted_parts']],
      ['a Total of itself', { aggregates: ['ergot'], unlisted_parts: [], parts_stated: 'all' }, ['aggregates.0']],
      ['a Total of another group', { aggregates: ['x'], unlisted_parts: [], parts_stated: 'all' }, ['aggregates.0']],
      ['a footnote that is none', { footnote_ref: '9' }, ['footnote_ref']],
      [
        'conditions with no text',
        { fallthrough_conditions: [{ condition: '> 1%', grade: 'T Feed' }] },
        ['fallthrough_conditions'],
      ],
      [
        'a condition naming a grade its text does not',
        { fallthrough: 'Wheat, Sample', fallthrough_conditions: [{ condition: '> 1%', grade: 'Feed' }] },
        ['fallthrough_conditions.0.grade'],
      ],
    ];
    for (const [what, change, at] of cases)
      assert.deepEqual(where(rowReferenceProblems(row(change), group, footnotes)), at, what);
  });

  it('the waiver: needed where a row gets stricter down the ladder, refused elsewhere', () => {
    const ladders = [['1', '2', '3']];
    const factor = (values: number[], direction: Factor['threshold_direction'] = 'maximum') =>
      ({
        threshold_direction: direction,
        thresholds: Object.fromEntries(
          values.map((v, i) => [String(i + 1), { value_type: 'numeric', value: v, decimals: 1 }]),
        ),
      }) as unknown as Factor;
    const cases: [string, Factor, boolean, string[]][] = [
      ['loosening, no waiver', factor([1, 2, 3]), false, []],
      ['stricter, no waiver', factor([1, 0.5, 3]), false, ['thresholds']],
      ['stricter, waived', factor([1, 0.5, 3]), true, []],
      ['loosening, waived', factor([1, 2, 3]), true, ['monotonic_waiver']],
      ['a minimum rising', factor([3, 4, 1], 'minimum'), false, ['thresholds']],
      ['a qualitative row, waived', factor([], 'qualitative'), true, ['monotonic_waiver']],
    ];
    for (const [what, f, waived, at] of cases) assert.deepEqual(where(waiverProblems(f, waived, ladders, 3)), at, what);
  });

  it('the rules that name factors, colours and tracks', () => {
    const factors = new Set(['soundness', 'ergot']);
    const rule = base.footnote_rules?.[0] ?? { footnote: '1', effect: 'suffix' };
    const cases: [string, Partial<SourceGrain>, string[]][] = [
      ['the base grain', {}, []],
      ['a colour modifier with no colours', { colour_modifier: true }, ['colours']],
      [
        'a footnote rule of no footnote',
        { footnote_rules: [{ ...rule, footnote: '9' }] } as never,
        ['footnote_rules.0.footnote'],
      ],
      [
        'a footnote rule of no factor',
        { footnote_rules: [{ ...rule, factor_ids: ['soundness', 'x'] }] } as never,
        ['footnote_rules.0.factor_ids.1'],
      ],
      [
        'a floor on no factor',
        { grade_floor_rules: [{ ...base.grade_floor_rules![0]!, factor_ids: ['x'] }] },
        ['grade_floor_rules.0.factor_ids.0'],
      ],
    ];
    for (const [what, change, at] of cases) assert.deepEqual(where(ruleProblems(grain(change), factors)), at, what);
  });
});
