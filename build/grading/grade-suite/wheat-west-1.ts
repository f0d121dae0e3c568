// Western wheat (CWRS, CWAD, CPSR): each answer read off the class's primary grade
// determination table on the authority's page; decided_by names the table, row and column.
import { E, F, G, group, type SuiteGroup, U } from './define.ts';
import { judged, mildew, TFM, THB, TSB, TWOC, zero } from './sample-parts.ts';

export const westWheat1: SuiteGroup[] = [
  group(
    'CWRS',
    'Canada Western Red Spring: the examples docs/grading.md works through',
    {
      values: {
        minimum_test_weight: 75,
        minimum_hard_vitreous_kernels: 65,
        minimum_protein: 10,
        ...zero(TFM, THB, TWOC, TSB, 'total_sprouted'),
      },
      judgments: judged('No. 1 CWRS'),
    },
    [
      [
        'clean, at every No. 1 minimum exactly',
        {},
        G('No. 1 CWRS'),
        'Standard of quality: test weight 75, hard vitreous kernels 65, protein 10.0 in the No. 1 CWRS column',
      ],
      [
        'ergot exactly at the limit',
        { values: { ergot: 0.04, [TFM]: 0.04 } },
        G('No. 1 CWRS'),
        'Foreign material: Ergot row, No. 1 CWRS column 0.04',
      ],
      [
        'ergot one place past the limit',
        { values: { ergot: 0.05, [TFM]: 0.05 } },
        G('CW Feed'),
        'Ergot row: 0.04 in the No. 1 to No. 3 CWRS columns, 0.10 under CW Feed',
      ],
      [
        'protein 9.94 is reported 9.9',
        { values: { minimum_protein: 9.94 } },
        G('No. 2 CWRS'),
        'Minimum protein row: No. 1 CWRS 10.0 (one decimal), No. 2 CWRS No minimum',
      ],
      [
        'protein 9.96 is reported 10.0',
        { values: { minimum_protein: 9.96 } },
        G('No. 1 CWRS'),
        'Minimum protein row: No. 1 CWRS 10.0 (one decimal)',
      ],
      [
        'test weight in g/0.5 L',
        { drop: ['minimum_test_weight'], alt_values: { minimum_test_weight: 350 } },
        G('No. 2 CWRS'),
        'Minimum test weight row, g/0.5 L: No. 1 CWRS (365), No. 2 CWRS (350)',
      ],
      [
        'soundness judged CW Feed on account of mildew: floor No. 3',
        { judgments: { degree_of_soundness: 'CW Feed' }, accounts: mildew },
        G('No. 3 CWRS'),
        'Note above the table: graded no lower than No. 3 CWRS on account of mildew',
      ],
      [
        'stones within 2.5%: Rejected, named by the other factors',
        { values: { stones: 1, [TFM]: 1 } },
        F('Wheat, Rejected No. 2 CWRS, Account Stones'),
        'Stones row, last column "2.5% or less - Wheat, Rejected grade, Account Stones"; ' +
          'Total Foreign material 1 meets No. 2 CWRS (1.2)',
      ],
      [
        'stones over 2.5%',
        { values: { stones: 3, [TFM]: 3 } },
        F('Wheat, Sample Salvage'),
        'Stones row, last column "Over 2.5% - Wheat, Sample Salvage"',
      ],
      [
        'ergot past CW Feed',
        { values: { ergot: 0.11, [TFM]: 0.11 } },
        F('Wheat, Sample CW Account Ergot'),
        'Ergot row: CW Feed 0.10; last column "Wheat, Sample CW Account Ergot"',
      ],
      [
        'protein not measured',
        { drop: ['minimum_protein'] },
        U('minimum_protein'),
        'Minimum protein row: No. 1 CWRS 10.0 needs the measured protein',
      ],
      [
        'a negative ergot cannot be real',
        { values: { ergot: -1 } },
        E('values.ergot'),
        'Ergot row: a percentage, 0 to 100',
      ],
      [
        'protein of 250% cannot be real',
        { values: { minimum_protein: 250 } },
        E('values.minimum_protein'),
        'Minimum protein row: a percentage, 0 to 100',
      ],
      [
        'a test weight of 250 kg/hL cannot be real',
        { values: { minimum_test_weight: 250 } },
        E('values.minimum_test_weight'),
        'Minimum test weight row, kg/hL: no grain weighs more than water (100)',
      ],
    ],
  ),
  group(
    'CWAD',
    'Canada Western Amber Durum: judgement cells at No. 4, answered by stricter limits above them',
    {
      values: {
        minimum_test_weight: 79,
        minimum_hard_vitreous_kernels: 80,
        minimum_protein: 9.5,
        ...zero(TFM, THB, 'total_wheats_of_other_classes_or_varieties', 'total_smudge', TSB, 'total_sprouted'),
      },
      judgments: judged('No. 1 CWAD'),
    },
    [
      [
        'clean',
        {},
        G('No. 1 CWAD'),
        'Standard of quality: test weight 79, hard vitreous kernels 80, protein 9.5 in the No. 1 CWAD column',
      ],
      [
        'smudge within No. 1, other classes at No. 4: no judgement asked',
        {
          values: {
            other_classes: 10,
            total_wheats_of_other_classes_or_varieties: 10,
            penetrated_smudge: 0.03,
            total_smudge: 0.03,
            [TSB]: 0.03,
          },
        },
        G('No. 4 CWAD'),
        'Other classes row: No. 3 CWAD 4.3, No. 4 CWAD 10.0; smudge rows within No. 1 (0.03, 0.5, 5), ' +
          'so No. 4\'s "Consider overall appearance" is met',
      ],
      [
        'penetrated smudge past No. 3, not judged',
        { values: { penetrated_smudge: 0.6, total_smudge: 0.6, [TSB]: 0.6 } },
        {
          ...U('penetrated_smudge'),
          judgments_needed: [
            { factor_id: 'penetrated_smudge', grade: 'No. 4 CWAD', standard: 'Consider overall appearance' },
          ],
        },
        'Penetrated smudge row: No. 3 CWAD 0.50; No. 4 CWAD "Consider overall appearance" needs a judgement',
      ],
      [
        'penetrated smudge past No. 3, judged to meet No. 4',
        {
          values: { penetrated_smudge: 0.6, total_smudge: 0.6, [TSB]: 0.6 },
          judgments: { penetrated_smudge: 'No. 4 CWAD' },
        },
        G('No. 4 CWAD'),
        'Penetrated smudge row: No. 4 CWAD "Consider overall appearance", judged met',
      ],
      [
        'ergot one place past No. 2',
        { values: { ergot: 0.03, [TFM]: 0.03 } },
        G('No. 3 CWAD'),
        'Ergot row: No. 1 and No. 2 CWAD 0.02, No. 3 CWAD 0.04',
      ],
      [
        'soundness judged No. 5 on account of mildew: floor No. 4',
        { judgments: { degree_of_soundness: 'No. 5 CWAD' }, accounts: mildew },
        G('No. 4 CWAD'),
        'Note above the table: graded no lower than No. 4 CWAD on account of mildew',
      ],
      [
        'fireburnt one place past No. 5',
        { values: { fireburnt: 2.1 } },
        F('Wheat, Sample CW Account Fireburnt'),
        'Fireburnt row: No. 5 CWAD 2.0; last column "Wheat, Sample CW Account Fireburnt"',
      ],
    ],
  ),
  group(
    'CPSR',
    'Canada Prairie Spring Red',
    {
      values: { minimum_test_weight: 77, ...zero(TFM, TWOC, THB, 'total_smudge', TSB, 'total_sprouted') },
      judgments: judged('No. 1 CPSR'),
    },
    [
      ['clean', {}, G('No. 1 CPSR'), 'Standard of quality: test weight 77 in the No. 1 CPSR column'],
      [
        'test weight 76.4 is reported 76',
        { values: { minimum_test_weight: 76.4 } },
        G('No. 2 CPSR'),
        'Minimum test weight row: No. 1 CPSR 77 (whole numbers), No. 2 CPSR 75',
      ],
      [
        'test weight 76.5 is reported 77',
        { values: { minimum_test_weight: 76.5 } },
        G('No. 1 CPSR'),
        'Minimum test weight row: No. 1 CPSR 77 (whole numbers)',
      ],
      [
        'excreta one place past No. 1',
        { values: { excreta: 0.02, [TFM]: 0.02 } },
        G('No. 2 CPSR'),
        'Excreta row: No. 1 CPSR 0.01, No. 2 CPSR 0.03',
      ],
      [
        'soundness judged CW Feed on account of mildew: floor No. 2',
        { judgments: { degree_of_soundness: 'CW Feed' }, accounts: mildew },
        G('No. 2 CPSR'),
        'Note above the table: graded no lower than No. 2 CPSR on account of mildew',
      ],
      [
        'fusarium over 10%',
        { values: { fusarium_damage: 10.5 } },
        F('Wheat, Commercial Salvage'),
        'Fusarium damage row, last column "Over 10% - Wheat, Commercial Salvage"',
      ],
      [
        'fusarium past CW Feed, 10% or less',
        { values: { fusarium_damage: 4.1 } },
        F('Wheat, Sample Canada Account Fusarium Damage'),
        'Fusarium damage row: CW Feed 4.0; last column "10% or less - Wheat, Sample Canada Account Fusarium Damage"',
      ],
      [
        'variety not judged',
        { drop: ['variety'] },
        U('variety'),
        'Variety row: a standard in words, judged by the inspector',
      ],
    ],
  ),
];
