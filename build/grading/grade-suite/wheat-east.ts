// Eastern wheat (CERS, CEHRW, CESRW, CEAD, CEWW, CEOW, CEFD): each answer read off the class's
// primary grade determination table on the authority's page; decided_by names the row and column.
import { E, F, G, group, type SuiteGroup, U } from './define.ts';
import { judged, mildew, TFM, THB, TSB, TWOC, zero } from './sample-parts.ts';

const smudgeTotals = zero(TFM, THB, 'total_smudge', TSB);

export const eastWheat: SuiteGroup[] = [
  group(
    'CERS',
    'Canada Eastern Red Spring',
    { values: { minimum_test_weight: 75, ...smudgeTotals }, judgments: judged('No. 1 CERS') },
    [
      ['clean', {}, G('No. 1 CERS'), 'Standard of quality: test weight 75 in the No. 1 CERS column'],
      [
        'sprouted exactly 2.5',
        { values: { sprouted: 2.5 } },
        G('No. 2 CERS'),
        'Sprouted row: No. 1 CERS 0.5, No. 2 2.5',
      ],
      ['sprouted 2.6', { values: { sprouted: 2.6 } }, G('No. 3 CERS'), 'Sprouted row: No. 2 CERS 2.5, No. 3 8.0'],
      [
        'stones within 2.5%',
        { values: { stones: 0.2, [TFM]: 0.2 } },
        F('Wheat, Sample CE Account Stones'),
        'Stones row: No. 4 CERS 0.10; last column "2.5% or less - Wheat, Sample CE Account Stones"',
      ],
      [
        'soundness judged No. 4 on account of mildew: floor No. 3',
        { judgments: { degree_of_soundness: 'No. 4 CERS' }, accounts: mildew },
        G('No. 3 CERS'),
        'Note above the table: graded no lower than No. 3 CERS on account of mildew',
      ],
      ['total smudge not measured', { drop: ['total_smudge'] }, U('total_smudge'), 'Total Smudge row'],
    ],
  ),
  group(
    'CEHRW',
    'Canada Eastern Hard Red Winter',
    { values: { minimum_test_weight: 76, ...smudgeTotals }, judgments: judged('No. 1 CEHRW') },
    [
      ['clean', {}, G('No. 1 CEHRW'), 'Standard of quality: test weight 76 in the No. 1 CEHRW column'],
      ['pink exactly 1', { values: { pink: 1 } }, G('No. 1 CEHRW'), 'Pink row: No. 1 CEHRW 1'],
      [
        'pink 1.5 is reported 2',
        { values: { pink: 1.5 } },
        G('No. 2 CEHRW'),
        'Pink row: No. 1 CEHRW 1 (whole numbers), No. 2 5',
      ],
      [
        'sclerotinia past No. 4',
        { values: { sclerotinia: 0.26, [TFM]: 0.26 } },
        F('Wheat, Sample CE Account Admixture'),
        'Sclerotinia row: No. 4 CEHRW 0.25; last column "Wheat, Sample CE Account Admixture"',
      ],
      [
        'soundness judged No. 4 on account of mildew: floor No. 3',
        { judgments: { degree_of_soundness: 'No. 4 CEHRW' }, accounts: mildew },
        G('No. 3 CEHRW'),
        'Note above the table: graded no lower than No. 3 CEHRW on account of mildew',
      ],
      ['variety not judged', { drop: ['variety'] }, U('variety'), 'Variety row: a standard in words'],
    ],
  ),
  group(
    'CESRW',
    'Canada Eastern Soft Red Winter',
    { values: { minimum_test_weight: 76, ...smudgeTotals }, judgments: judged('No. 1 CESRW') },
    [
      ['clean', {}, G('No. 1 CESRW'), 'Standard of quality: test weight 76 in the No. 1 CESRW column'],
      [
        'test weight in g/0.5 L exactly 360',
        { drop: ['minimum_test_weight'], alt_values: { minimum_test_weight: 360 } },
        G('No. 2 CESRW'),
        'Minimum test weight row, g/0.5 L: No. 1 CESRW (370), No. 2 (360)',
      ],
      [
        'test weight 64.4 is reported 64',
        { values: { minimum_test_weight: 64.4 } },
        F('Wheat, Sample CE Account Light Weight'),
        'Minimum test weight row: No. 4 CESRW 65; last column "Wheat, Sample CE Account Light Weight"',
      ],
      [
        'fusarium damage past No. 4',
        { values: { fusarium_damage: 5.1 } },
        F('Wheat, Sample CE Account Fusarium Damage'),
        'Fusarium damage row: No. 4 CESRW 5.0; last column "Wheat, Sample CE Account Fusarium Damage"',
      ],
      [
        'soundness judged No. 4 on account of mildew: floor No. 3',
        { judgments: { degree_of_soundness: 'No. 4 CESRW' }, accounts: mildew },
        G('No. 3 CESRW'),
        'Note above the table: graded no lower than No. 3 CESRW on account of mildew',
      ],
      [
        'test weight of 0 cannot be real',
        { values: { minimum_test_weight: 0 } },
        E('values.minimum_test_weight'),
        'Minimum test weight row, kg/hL: more than 0',
      ],
    ],
  ),
  group(
    'CEAD',
    'Canada Eastern Amber Durum: no floor rule',
    {
      values: {
        minimum_test_weight: 79,
        minimum_hard_vitreous_kernels: 80,
        ...zero(TFM, 'total_wheats_of_other_classes_or_varieties', THB, 'total_smudge', TSB),
      },
      judgments: judged('No. 1 CEAD'),
    },
    [
      [
        'clean',
        {},
        G('No. 1 CEAD'),
        'Standard of quality: test weight 79, hard vitreous kernels 80 in the No. 1 CEAD column',
      ],
      [
        'hard vitreous kernels 59',
        { values: { minimum_hard_vitreous_kernels: 59 } },
        G('No. 3 CEAD'),
        'Minimum hard vitreous kernels row: No. 2 CEAD 60, No. 3 40',
      ],
      [
        'severe midge and penetrated smudge 0.3 together',
        { values: { severe_midge: 0.1, penetrated_smudge: 0.2 } },
        G('No. 2 CEAD'),
        'Total Severe midge and penetrated smudge row (the sum of its two rows): No. 1 CEAD 0.1, No. 2 0.3',
      ],
      [
        'other classes past No. 4',
        { values: { other_classes: 50, total_wheats_of_other_classes_or_varieties: 50 } },
        F('Wheat, Sample CE Account Admixture'),
        'Other classes row: No. 4 CEAD 49; last column "Wheat, Sample CE Account Admixture"',
      ],
      [
        'soundness judged No. 4 on account of mildew: no floor',
        { judgments: { degree_of_soundness: 'No. 4 CEAD' }, accounts: mildew },
        G('No. 4 CEAD'),
        'Degree of soundness row, No. 4 CEAD; the CEAD page sets no floor for mildew',
      ],
      [
        'hard vitreous kernels not measured',
        { drop: ['minimum_hard_vitreous_kernels'] },
        U('minimum_hard_vitreous_kernels'),
        'Minimum hard vitreous kernels row',
      ],
    ],
  ),
  group(
    'CEWW',
    'Canada Eastern White Winter',
    {
      values: { minimum_test_weight: 76, ...zero(TFM, TWOC, THB, 'total_smudge', TSB) },
      judgments: judged('No. 1 CEWW'),
    },
    [
      ['clean', {}, G('No. 1 CEWW'), 'Standard of quality: test weight 76 in the No. 1 CEWW column'],
      [
        'shrunken and broken exactly 5',
        { values: { shrunken_and_broken: 5 } },
        G('No. 2 CEWW'),
        'Shrunken and broken row: 3, 5',
      ],
      [
        'shrunken and broken 5.5 is reported 6',
        { values: { shrunken_and_broken: 5.5 } },
        G('No. 3 CEWW'),
        'Shrunken and broken row: 5, 8',
      ],
      [
        'excreta past No. 4',
        { values: { excreta: 0.04, [TFM]: 0.04 } },
        F('Wheat, Sample CE Account Excreta'),
        'Excreta row: No. 4 CEWW 0.03; last column "Wheat, Sample CE Account Excreta"',
      ],
      [
        'soundness judged No. 4 on account of mildew: floor No. 3',
        { judgments: { degree_of_soundness: 'No. 4 CEWW' }, accounts: mildew },
        G('No. 3 CEWW'),
        'Note above the table: graded no lower than No. 3 CEWW on account of mildew',
      ],
      ['foreign material not measured', { drop: [TFM] }, U(TFM), 'Total Foreign material row'],
    ],
  ),
  group(
    'CEOW',
    'Canada Eastern Other Wheat: three grades',
    { values: { minimum_test_weight: 74, [TFM]: 0 }, judgments: judged('No. 1 CEOW') },
    [
      ['clean', {}, G('No. 1 CEOW'), 'Standard of quality: test weight 74 in the No. 1 CEOW column'],
      ['heated exactly 2.0', { values: { heated: 2 } }, G('No. 2 CEOW'), 'Heated row: 0.8, 2.0'],
      ['heated 2.1', { values: { heated: 2.1 } }, G('No. 3 CEOW'), 'Heated row: No. 2 CEOW 2.0, No. 3 2.5'],
      [
        'heated past No. 3',
        { values: { heated: 2.6 } },
        F('Wheat, Sample CE Account Heated'),
        'Heated row: No. 3 CEOW 2.5; last column "Wheat, Sample CE Account Heated"',
      ],
      ['soundness not judged', { drop: ['degree_of_soundness'] }, U('degree_of_soundness'), 'Degree of soundness row'],
    ],
  ),
  group(
    'CEFD',
    'Canada Eastern Feed: one grade',
    { values: { minimum_test_weight: 65, ...zero(TFM, THB, TSB) }, judgments: judged('CE Feed') },
    [
      ['clean, at the minimum', {}, G('CE Feed'), 'Standard of quality: test weight 65 in the CE Feed column'],
      ['broken exactly 50', { values: { broken: 50 } }, G('CE Feed'), 'Broken row: CE Feed 50'],
      [
        'broken 51',
        { values: { broken: 51 } },
        F('Sample Broken Grain'),
        'Broken row: CE Feed 50; last column "Sample Broken Grain"',
      ],
      [
        'stones over 2.5%',
        { values: { stones: 2.6, [TFM]: 2.6 } },
        F('Wheat, Sample Salvage'),
        'Stones row, last column "Over 2.5% - Wheat, Sample Salvage"',
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
