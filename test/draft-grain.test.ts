// The importer's steps (build/import/draft-grain.ts, propose.ts), each called on its own: a page's
// row, a section's notes or grade columns in, the grain file's part out. test/importer.test.ts
// holds the whole draft against the authority's pages.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { draftRow, sharedGrades } from '../build/import/draft-grain.ts';
import type { PageRow, PageSection } from '../build/import/parse-page.ts';
import { proposeColours, proposeFloorRules, proposeTracks } from '../build/import/propose.ts';
import type { SourceFactor, SourceGrain } from '../build/types.ts';

const pageRow = (change: Partial<PageRow>): PageRow => ({
  header: 'Ergot %',
  footnoteRefs: [],
  cells: ['0.04', '0.04', '0.10'],
  fallthrough: '',
  isTotal: false,
  opensBlock: false,
  ...change,
});
const ctx = { id: 'ergot', group: 'grading factors', footnotes: { '1': 'See Mildew (MIL)' }, aggregates: () => ['a'] };

describe('a page, step by step into a grain file', () => {
  it('a row: its header read, its cells written, the editor’s choices kept', () => {
    const cases: [string, PageRow, Partial<typeof ctx> & { prev?: SourceFactor }, Partial<SourceFactor>][] = [
      [
        'a percentage',
        pageRow({}),
        {},
        { factor_id: 'ergot', factor_label: 'Ergot', thresholds: ['0.04', '0.04', '0.10'] },
      ],
      [
        'a minimum in kg/hL',
        pageRow({ header: 'Minimum test weight kg/hL (g/0.5 L)', cells: ['75.0 (300)', '72.0 (290)', 'No minimum'] }),
        { id: 'minimum_test_weight' },
        { unit: 'kg/hL', unit_alt: 'g/0.5 L', threshold_direction: 'minimum' },
      ],
      [
        'a qualitative row',
        pageRow({ header: 'Degree of soundness', cells: ['Sound', 'Fair', 'Any'] }),
        {},
        { threshold_direction: 'qualitative' },
      ],
      [
        'a Total, its parts proposed',
        pageRow({ header: 'Total foreign material %', isTotal: true }),
        {},
        { aggregates: ['a'], unlisted_parts: [], parts_stated: 'not_stated' },
      ],
      [
        'a Total on an update: the editor’s parts kept',
        pageRow({ header: 'Total foreign material %', isTotal: true }),
        {
          prev: {
            factor_id: 'fm',
            aggregates: ['b'],
            parts_stated: 'all',
            unlisted_parts: ['x'],
            thresholds: [],
          } as unknown as SourceFactor,
        },
        { factor_id: 'fm', aggregates: ['b'], unlisted_parts: ['x'], parts_stated: 'all' },
      ],
      ['a footnote the section holds', pageRow({ footnoteRefs: ['9', '1'] }), {}, { footnote_ref: '1' }],
      [
        'a fall-through, its conditions proposed',
        pageRow({ fallthrough: '2.5% or less - Wheat, Feed Over 2.5% - Salvage' }),
        {},
        {
          fallthrough_conditions: [
            { condition: '<= 2.5%', region: null, grade: 'Wheat, Feed' },
            { condition: '> 2.5%', region: null, grade: 'Salvage' },
          ],
        },
      ],
    ];
    for (const [what, row, change, expected] of cases) {
      const f = draftRow(row, { ...ctx, ...change });
      for (const [key, value] of Object.entries(expected))
        assert.deepEqual(f[key as keyof SourceFactor], value, `${what}: ${key}`);
    }
    assert.throws(() => draftRow(pageRow({ cells: ['0.04', '', '0.10'] }), ctx), /grading factors, Ergot: /);
  });

  it('the grade columns: one set for every table of the section', () => {
    const table = (grades: string[]) => ({ grades }) as PageSection['tables'][number];
    assert.deepEqual(sharedGrades({ name: 's', notes: [], tables: [table(['1', '2']), table(['1', '2'])] }), [
      '1',
      '2',
    ]);
    assert.throws(
      () => sharedGrades({ name: 's', notes: [], tables: [table(['1', '2']), table(['1', '3'])] }),
      /do not share one set of grade columns/,
    );
  });

  it('what needs judgement: tracks, colours, floor rules, the editor’s earlier choice kept', () => {
    const kept = { variety_tracks: [{ track_id: 'x', grades: ['1'] }], colours: ['Red'] } as unknown as SourceGrain;
    const tracks: [string[], SourceGrain | undefined, unknown][] = [
      [['No. 1', 'No. 2'], undefined, {}],
      [['No. 1 Hulless', 'No. 2 Hulless'], undefined, {}],
      [
        ['No. 1', 'No. 1 Hulless'],
        undefined,
        {
          variety_tracks: [
            { track_id: 'covered', grades: ['No. 1'] },
            { track_id: 'hulless', grades: ['No. 1 Hulless'] },
          ],
        },
      ],
      [['No. 1', 'No. 1 Hulless'], kept, { variety_tracks: kept.variety_tracks }],
    ];
    for (const [grades, existing, expected] of tracks) assert.deepEqual(proposeTracks(grades, existing), expected);
    const colours: [string, SourceGrain | undefined, unknown][] = [
      ['Corn, Canada Western Yellow, White or Mixed', undefined, { colours: ['Yellow', 'White', 'Mixed'] }],
      ['Oats, Canada Western Yellow', undefined, {}],
      ['Corn, Canada Western Yellow, White or Mixed', kept, { colours: ['Red'] }],
    ];
    for (const [name, existing, expected] of colours) assert.deepEqual(proposeColours(name, existing), expected);

    const note = 'Samples will be graded no lower than No. 2 T on account of mildew.';
    const factors = [{ factor_id: 'soundness', footnote_ref: '1' }, { factor_id: 'ergot' }] as SourceFactor[];
    const footnotes = { '1': 'See Mildew (MIL) for applicable standard' };
    const rule = { account: 'mildew', floor_grade: 'No. 2 T', note };
    assert.deepEqual(proposeFloorRules({ notes: [note, 'Another note.'] }, footnotes, factors), [
      { ...rule, factor_ids: ['soundness'] },
    ]);
    assert.deepEqual(proposeFloorRules({ notes: [note] }, {}, factors), [{ ...rule, factor_ids: [] }]);
    const existing = { grade_floor_rules: [{ ...rule, factor_ids: ['ergot'] }] } as unknown as SourceGrain;
    assert.deepEqual(proposeFloorRules({ notes: [note] }, footnotes, factors, existing), [
      { ...rule, factor_ids: ['ergot'] },
    ]);
  });
});
