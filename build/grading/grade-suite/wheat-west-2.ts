// Western wheat (CWSWS, CWES, CPSW, CNHR, CWSP): each answer read off the class's primary grade
// determination table on the authority's page; decided_by names the table, row and column.
import { E, F, G, group, type SuiteGroup, U } from './define.ts';
import { judged, mildew, TFM, THB, TSB, TWOC, zero } from './sample-parts.ts';

const appearance = 'Consider overall appearance';
const cwesSmudge = { values: { minimum_test_weight: 73, smudge: 1.5, [TSB]: 1.5 } };

export const westWheat2: SuiteGroup[] = [
  group(
    'CWSWS',
    'Canada Western Soft White Spring',
    {
      values: { minimum_test_weight: 76, ...zero(TFM, THB, 'total_smudge', TSB, 'total_sprouted') },
      judgments: judged('No. 1 CWSWS'),
    },
    [
      ['clean', {}, G('No. 1 CWSWS'), 'Standard of quality: test weight 76 in the No. 1 CWSWS column'],
      [
        'wheats of other classes 3.5 is reported 4',
        { values: { wheats_of_other_classes_or_varieties: 3.5 } },
        G('No. 2 CWSWS'),
        'Wheats of other classes or varieties row: No. 1 CWSWS 3 (whole numbers), No. 2 CWSWS 6',
      ],
      [
        'foreign material exactly 1.0',
        { values: { [TFM]: 1 } },
        G('No. 1 CWSWS'),
        'Total Foreign material row: No. 1 1.0',
      ],
      ['foreign material 1.1', { values: { [TFM]: 1.1 } }, G('No. 2 CWSWS'), 'Total Foreign material row: 1.0, 2.0'],
      [
        'ergot past CW Feed',
        { values: { ergot: 0.11, [TFM]: 0.11 } },
        F('Wheat, Sample CW Account Ergot'),
        'Ergot row: CW Feed 0.10; last column "Wheat, Sample CW Account Ergot"',
      ],
      [
        'soundness judged CW Feed on account of mildew: floor No. 3',
        { judgments: { degree_of_soundness: 'CW Feed' }, accounts: mildew },
        G('No. 3 CWSWS'),
        'Note above the table: graded no lower than No. 3 CWSWS on account of mildew',
      ],
      ['soundness not judged', { drop: ['degree_of_soundness'] }, U('degree_of_soundness'), 'Degree of soundness row'],
    ],
  ),
  group(
    'CWES',
    'Canada Western Extra Strong: judgement cells at No. 2',
    {
      values: { minimum_test_weight: 75, minimum_protein: 10, ...zero(TFM, TWOC, THB, TSB, 'total_sprouted') },
      judgments: judged('No. 1 CWES'),
    },
    [
      ['clean', {}, G('No. 1 CWES'), 'Standard of quality: test weight 75, protein 10.0 in the No. 1 CWES column'],
      [
        'smudge within No. 1, test weight at No. 2: no judgement asked',
        { values: { minimum_test_weight: 73, smudge: 0.5, [TSB]: 0.5 } },
        G('No. 2 CWES'),
        'Minimum test weight row: 75, 73; Smudge row: No. 1 CWES 1 met, ' +
          'so No. 2\'s "Consider overall appearance" is met',
      ],
      [
        'smudge 1.5 (reported 2), not judged',
        cwesSmudge,
        {
          ...U('smudge'),
          judgments_needed: [{ factor_id: 'smudge', grade: 'No. 2 CWES', standard: appearance }],
        },
        'Smudge row: No. 1 CWES 1 (whole numbers); No. 2 CWES "Consider overall appearance" needs a judgement',
      ],
      [
        'smudge 1.5, judged to meet No. 2',
        { ...cwesSmudge, judgments: { smudge: 'No. 2 CWES' } },
        G('No. 2 CWES'),
        'Smudge row: No. 2 CWES "Consider overall appearance", judged met',
      ],
      [
        'smudge 1.5, judged not to meet No. 2',
        { ...cwesSmudge, judgments: { smudge: 'CW Feed' } },
        G('CW Feed'),
        'Smudge row: No. 2 CWES judged not met; CW Feed No limit',
      ],
      [
        'soundness judged CW Feed on account of mildew: floor No. 2',
        { judgments: { degree_of_soundness: 'CW Feed' }, accounts: mildew },
        G('No. 2 CWES'),
        'Note above the table: graded no lower than No. 2 CWES on account of mildew',
      ],
      [
        'fireburnt past CW Feed',
        { values: { fireburnt: 2.1 } },
        F('Wheat, Sample CW Account Fireburnt'),
        'Fireburnt row: CW Feed 2.0; last column "Wheat, Sample CW Account Fireburnt"',
      ],
    ],
  ),
  group(
    'CPSW',
    'Canada Prairie Spring White',
    {
      values: { minimum_test_weight: 77, ...zero(TFM, TWOC, THB, 'total_smudge', TSB, 'total_sprouted') },
      judgments: judged('No. 1 CPSW'),
    },
    [
      ['clean', {}, G('No. 1 CPSW'), 'Standard of quality: test weight 77 in the No. 1 CPSW column'],
      [
        'penetrated smudge exactly 0.10',
        { values: { penetrated_smudge: 0.1, total_smudge: 0.1, [TSB]: 0.1 } },
        G('No. 1 CPSW'),
        'Penetrated smudge row: No. 1 CPSW 0.10',
      ],
      [
        'penetrated smudge 0.11',
        { values: { penetrated_smudge: 0.11, total_smudge: 0.11, [TSB]: 0.11 } },
        G('No. 2 CPSW'),
        'Penetrated smudge row: No. 1 CPSW 0.10, No. 2 CPSW 0.50',
      ],
      [
        'test weight past CW Feed',
        { values: { minimum_test_weight: 64 } },
        F('Wheat, Sample Canada Account Light Weight'),
        'Minimum test weight row: CW Feed 65; last column "Wheat, Sample Canada Account Light Weight"',
      ],
      [
        'soundness judged CW Feed on account of mildew: floor No. 2',
        { judgments: { degree_of_soundness: 'CW Feed' }, accounts: mildew },
        G('No. 2 CPSW'),
        'Note above the table: graded no lower than No. 2 CPSW on account of mildew',
      ],
      ['total smudge not measured', { drop: ['total_smudge'] }, U('total_smudge'), 'Total Smudge row'],
    ],
  ),
  group(
    'CNHR',
    'Canada Northern Hard Red',
    {
      values: { minimum_test_weight: 75, minimum_protein: 11, ...zero(TFM, TWOC, THB, TSB, 'total_sprouted') },
      judgments: judged('No. 1 CNHR'),
    },
    [
      ['clean', {}, G('No. 1 CNHR'), 'Standard of quality: test weight 75, protein 11.0 in the No. 1 CNHR column'],
      ['protein 10.9', { values: { minimum_protein: 10.9 } }, G('No. 2 CNHR'), 'Minimum protein row: 11.0, No minimum'],
      [
        'fusarium damage exactly 0.8',
        { values: { fusarium_damage: 0.8 } },
        G('No. 2 CNHR'),
        'Fusarium damage row: No. 1 CNHR 0.3, No. 2 CNHR 0.8',
      ],
      [
        'fusarium damage 0.9',
        { values: { fusarium_damage: 0.9 } },
        G('No. 3 CNHR'),
        'Fusarium damage row: No. 2 CNHR 0.8, No. 3 CNHR 1.5',
      ],
      [
        'broken past CW Feed',
        { values: { broken: 14 } },
        F('Sample Broken Grain'),
        'Broken row: CW Feed 13; last column "Sample Broken Grain"',
      ],
      [
        'soundness judged CW Feed on account of mildew: floor No. 3',
        { judgments: { degree_of_soundness: 'CW Feed' }, accounts: mildew },
        G('No. 3 CNHR'),
        'Note above the table: graded no lower than No. 3 CNHR on account of mildew',
      ],
      [
        'a percentage over 100',
        { values: { broken: 100.5 } },
        E('values.broken'),
        'Broken row: a percentage, 0 to 100',
      ],
    ],
  ),
  group(
    'CWSP',
    'Canada Western Special Purpose: two grades, no soundness row',
    { values: { minimum_test_weight: 72, [TFM]: 0 }, judgments: { variety: 'No. 1 CWSP' } },
    [
      ['clean', {}, G('No. 1 CWSP'), 'Standard of quality: test weight 72 in the No. 1 CWSP column'],
      [
        'fusarium damage exactly 1.0',
        { values: { fusarium_damage: 1 } },
        G('No. 1 CWSP'),
        'Fusarium damage row: No. 1 CWSP 1.0',
      ],
      ['fusarium damage 1.1', { values: { fusarium_damage: 1.1 } }, G('No. 2 CWSP'), 'Fusarium damage row: 1.0, 4.0'],
      [
        'fusarium damage over 10%',
        { values: { fusarium_damage: 10.1 } },
        F('Wheat, Commercial Salvage'),
        'Fusarium damage row, last column "Over 10% - Wheat, Commercial Salvage"',
      ],
      [
        'stones within 2.5%: Rejected, named by the other factors',
        { values: { stones: 0.07, [TFM]: 0.07 } },
        F('Rejected No. 1 CWSP Account Stones'),
        'Stones row: No. 2 CWSP 0.06; last column "2.5% or less - Rejected (grade) Account Stones"',
      ],
      [
        'test weight not measured',
        { drop: ['minimum_test_weight'] },
        U('minimum_test_weight'),
        'Minimum test weight row',
      ],
    ],
  ),
];
