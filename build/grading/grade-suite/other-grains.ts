// Canola, barley (two tracks), corn and soybeans (colours), read off the authority's pages:
// regions, tracks, colours and the footnotes that change a grade. decided_by names row and column.
import { E, F, G, group, type SuiteGroup, U } from './define.ts';
import { TFM } from './sample-parts.ts';

const hulless = (region: 'CW' | 'CE', tw: string) => ({
  track: 'hulless',
  values: { [tw]: 72 },
  judgments: { degree_of_soundness: `No. 1 ${region} Hulless`, variety: `No. 1 ${region} Hulless` },
});
const suffix = (region: string) =>
  `Footnote 1: "If specs for ${region} Hulless grade not met add “Hulless” to Sample grade name"`;
const barleyBase = (region: 'CW' | 'CE', tw: string, min: number) => ({
  track: 'covered',
  values: { [tw]: min, total_adhered_hulls: 0, total_mineral_matter_including_stones: 0, [TFM]: 0 },
  judgments: { degree_of_soundness: `No. 1 ${region}`, variety: `No. 1 ${region}` },
});
const cornBase = (region: 'CW' | 'CE') => ({
  colour: 'Yellow',
  values: { minimum_test_weight: 68, total_damage: 0, total_cracked_corn_and_foreign_material: 0 },
  judgments: { degree_of_soundness: `No. 1 ${region}`, variety: `No. 1 ${region}` },
});
const canolaJudged = 'No. 1 Canada';

export const otherGrains: SuiteGroup[] = [
  group(
    'CANOLA',
    'Canola: the stones outcome depends on the region',
    {
      values: { total_damage: 0, total_conspicuous_admixture: 0 },
      judgments: {
        degree_of_soundness: canolaJudged,
        variety: canolaJudged,
        standard_of_cleaniness_commercially_pure_seed: canolaJudged,
      },
    },
    [
      ['clean', {}, G('No. 1 Canada'), 'Every row: No. 1 Canada column met'],
      ['heated exactly 0.1', { values: { heated: 0.1, total_damage: 0.1 } }, G('No. 1 Canada'), 'Heated row: 0.1'],
      [
        'heated 0.2',
        { values: { heated: 0.2, total_damage: 0.2 } },
        G('No. 2 Canada'),
        'Heated row: No. 1 0.1, No. 2 0.5',
      ],
      [
        'stones past No. 3 in the West',
        { region: 'western', values: { stones: 0.06, total_conspicuous_admixture: 0.06 } },
        F('Canola, Rejected No. 1 Canada Account Stones'),
        'Stones row: No. 3 Canada 0.05; last column "2.5% or less - West - Canola, Rejected (grade) Account Stones"',
      ],
      [
        'stones past No. 3 in the East',
        { region: 'eastern', values: { stones: 0.06, total_conspicuous_admixture: 0.06 } },
        F('Canola, Sample Canada Account Stones'),
        'Stones row, last column "or East - Canola, Sample Canada Account Stones"',
      ],
      [
        'stones past No. 3, region not given',
        { values: { stones: 0.06, total_conspicuous_admixture: 0.06 } },
        U('region'),
        'Stones row, last column: West and East differ',
      ],
      [
        'inconspicuous admixture exactly 50%',
        { values: { inconspicuous_admixture: 50 } },
        F('Canola, Sample Canada Account Admixture'),
        'Inconspicuous admixture row, last column "50% or less - Canola, Sample Canada Account Admixture"',
      ],
      [
        'inconspicuous admixture 51%',
        { values: { inconspicuous_admixture: 51 } },
        F('Refuse screenings'),
        'Inconspicuous admixture row, last column "Over 50% - Refuse screenings"',
      ],
    ],
  ),
  group(
    'BARLEY_GP_CW',
    'Western general purpose barley: covered and hulless tracks',
    barleyBase('CW', 'minimum_test_weight_cw', 63),
    [
      ['covered, clean', {}, G('No. 1 CW'), 'Standard of quality: test weight 63 in the No. 1 CW column'],
      [
        'track not given',
        { track: null },
        U('track'),
        'The table has a covered ladder (No. 1, No. 2 CW) and a hulless one',
      ],
      [
        'test weight 62.4 is reported 62',
        { values: { minimum_test_weight_cw: 62.4 } },
        G('No. 2 CW'),
        'Minimum test weight row: 63, 57',
      ],
      [
        'hulless, clean',
        hulless('CW', 'minimum_test_weight_cw'),
        G('No. 1 CW Hulless'),
        'Test weight 72 in the No. 1 CW Hulless column',
      ],
      [
        'hulless, adhered hulls exactly 10',
        {
          ...hulless('CW', 'minimum_test_weight_cw'),
          values: { minimum_test_weight_cw: 72, varieties_with_adhered_hulls: 10, total_adhered_hulls: 10 },
        },
        G('No. 1 CW Hulless'),
        'Varieties with adhered hulls and Total Adhered hulls rows: No. 1 CW Hulless 10',
      ],
      [
        'hulless, ergot past No. 2: the Sample grade takes "Hulless"',
        { ...hulless('CW', 'minimum_test_weight_cw'), values: { minimum_test_weight_cw: 72, ergot: 0.2, [TFM]: 0.2 } },
        { ...F('Barley, Sample CW Account Ergot'), note: 'add “Hulless” to the Sample grade name (footnote 1)' },
        `Ergot row: No. 2 CW Hulless 0.1; last column "Barley, Sample CW Account Ergot"; ${suffix('CW')}`,
      ],
      [
        'wild oats past No. 2, 50% or less',
        { values: { wild_oats: 2.6, [TFM]: 2.6 } },
        F('Mixed Grain CW Barley'),
        'Wild oats row: No. 2 CW 2.5; last column "50% or less - Mixed Grain CW Barley"',
      ],
      [
        'other cereal grains over 50%: the page states no outcome',
        { values: { other_cereal_grains: 51, [TFM]: 51 } },
        F(null),
        'Other cereal grains and Total Foreign material rows: the last column states only "50% or less"',
      ],
    ],
  ),
  group('BARLEY_GP_CE', 'Eastern general purpose barley', barleyBase('CE', 'minimum_test_weight', 60), [
    ['covered, clean', {}, G('No. 1 CE'), 'Standard of quality: test weight 60 in the No. 1 CE column'],
    ['fireburnt exactly 0.5', { values: { fireburnt: 0.5 } }, G('No. 2 CE'), 'Fireburnt row: 0.0, 0.5'],
    [
      'sprouted 10.5 is reported 11',
      { values: { sprouted: 10.5 } },
      G('No. 2 CE'),
      'Sprouted row: No. 1 CE 10, No. 2 20',
    ],
    [
      'stones past No. 2',
      { values: { stones: 0.16, total_mineral_matter_including_stones: 0.16, [TFM]: 0.16 } },
      F('Barley Sample CE Account Stones'),
      'Stones row: No. 2 CE 0.15; last column "2.5% or less - Barley Sample CE Account Stones"',
    ],
    [
      'hulless, fireburnt past No. 2: the Sample grade takes "Hulless"',
      { ...hulless('CE', 'minimum_test_weight'), values: { minimum_test_weight: 72, fireburnt: 0.6 } },
      { ...F('Barley, Sample CE Account Fireburnt'), note: 'add “Hulless” to the Sample grade name (footnote 1)' },
      `Fireburnt row: No. 2 CE Hulless 0.5; last column "Barley, Sample CE Account Fireburnt"; ${suffix('CE')}`,
    ],
    ['variety not judged', { drop: ['variety'] }, U('variety'), 'Variety row: a standard in words'],
  ]),
  group('CORN_CW', 'Western corn: the colour is added to the grade name', cornBase('CW'), [
    ['yellow, clean', {}, G('No. 1 CW Yellow'), 'Every row: No. 1 CW column; "The colour is added to the grade name."'],
    ['white', { colour: 'White' }, G('No. 1 CW White'), 'The colour is added to the grade name'],
    ['colour not given', { colour: null }, U('colour'), 'The colour is added to the grade name: it must be given'],
    [
      'other classes 5.5, reported 6: graded as Mixed',
      { values: { other_classes: 5.5 } },
      G('No. 1 CW Mixed'),
      'Other classes row: 5 (whole numbers); last column "Over 5% - Use all other grading criteria and grade as ' +
        'Corn (grade) Mixed"',
    ],
    [
      'stones are not counted in the Total',
      { values: { total_cracked_corn_and_foreign_material: 2, stones: 0.15 } },
      G('No. 1 CW Yellow'),
      'Footnote 1: "Stones are not included in Total cracked corn and foreign material"; that row: No. 1 CW 2',
    ],
    [
      'stones past No. 5 in the West',
      { values: { stones: 0.16 } },
      F('Corn, Rejected No. 1 CW Yellow Account Stones'),
      'Stones row: 0.15; last column "2.5% or less - Corn, Rejected (grade) (class) Account Stones"',
    ],
    [
      'heated past No. 5',
      { values: { heated: 3.1, total_damage: 3.1 } },
      F('Corn, Sample CW Yellow Account Heated'),
      'Heated row: No. 5 CW 3.0; last column "Corn, Sample CW (class) Account Heated"',
    ],
    [
      'cracked corn and foreign material over 50%',
      { values: { total_cracked_corn_and_foreign_material: 51 } },
      F('sample Cracked Corn and Foreign Material'),
      'Total Cracked corn and foreign material row, last column "Over 50% - sample Cracked Corn and Foreign Material"',
    ],
  ]),
  group('CORN_CE', 'Eastern corn', cornBase('CE'), [
    ['mixed, clean', { colour: 'Mixed' }, G('No. 1 CE Mixed'), 'Every row: No. 1 CE column; the colour Mixed is added'],
    [
      'test weight exactly 58',
      { values: { minimum_test_weight: 58 } },
      G('No. 5 CE Yellow'),
      'Minimum test weight row: No. 5 CE 58',
    ],
    [
      'test weight 57',
      { values: { minimum_test_weight: 57 } },
      F('Corn, Sample CE Yellow Account Light Weight'),
      'Minimum test weight row: No. 5 CE 58; last column "Corn, Sample CE (class) Account Light Weight"',
    ],
    [
      'stones past No. 5 in the East',
      { values: { stones: 0.16 } },
      F('Corn, Sample CE Yellow Account Stones'),
      'Stones row: 0.15; last column "2.5% or less - Corn, Sample CE (class) Account Stones"',
    ],
    [
      'cracked corn and foreign material 12.5 is reported 13',
      { values: { total_cracked_corn_and_foreign_material: 12.5 } },
      F('Corn Sample CE Yellow Account CCFM'),
      'Total Cracked corn and foreign material row: No. 5 CE 12; last column ' +
        '"50% or less - Corn Sample CE (class) Account CCFM"',
    ],
    ['white, clean', { colour: 'White' }, G('No. 1 CE White'), 'Every row: No. 1 CE column; the colour White is added'],
    [
      'stones are not counted in the Total',
      { values: { total_cracked_corn_and_foreign_material: 2, stones: 0.15 } },
      G('No. 1 CE Yellow'),
      'Footnote 1: "Stones are not included in Total cracked corn and foreign material"; that row: No. 1 CE 2',
    ],
    ['a colour the class does not have', { colour: 'Purple' }, E('colour'), 'The class name: Yellow, White or Mixed'],
  ]),
  group(
    'SOYBEANS',
    'Soybeans: colours, and other colours not assessed for Mixed',
    {
      colour: 'Yellow',
      values: { minimum_test_weight: 70, total_damage: 0, [TFM]: 0 },
      judgments: { degree_of_soundness: 'No. 1 Canada', variety: 'No. 1 Canada' },
    },
    [
      [
        'yellow, clean',
        {},
        G('No. 1 Canada Yellow'),
        'Every row: No. 1 Canada column; the colour is added to the grade name',
      ],
      ['other colours 4', { values: { other_colours: 4 } }, G('No. 3 Canada Yellow'), 'Other colours row: 2, 3, 5'],
      [
        'mixed with 40% other colours',
        { colour: 'Mixed', values: { other_colours: 40 } },
        G('No. 1 Canada Mixed'),
        'Footnote 2: "The tolerance for other colours is not applicable for Mixed soybeans"',
      ],
      [
        'yellow with other colours past No. 5',
        { values: { other_colours: 16 } },
        G('No. 1 Canada Mixed'),
        'Other colours row: No. 5 Canada 15; last column "Appropriate mixed grade"',
      ],
      [
        'stones past No. 5 in the East',
        { region: 'eastern', values: { stones: 0.2, [TFM]: 0.2 } },
        F('Soybeans, Sample Canada Yellow Account Stones'),
        'Stones row: No. 5 Canada 0.1; last column "or East - Soybeans, Sample Canada (colour) Account Stones"',
      ],
      [
        'stones past No. 5, region not given',
        { values: { stones: 0.2, [TFM]: 0.2 } },
        U('region'),
        'Stones row, last column: West and East differ',
      ],
      [
        'stones past No. 5 in the West',
        { region: 'western', values: { stones: 0.2, [TFM]: 0.2 } },
        F('Soybeans, Rejected No. 1 Canada Account Stones'),
        'Stones row, last column "West - Soybeans, Rejected (grade) Account Stones" (it names no (colour))',
      ],
      ['green, clean', { colour: 'Green' }, G('No. 1 Canada Green'), 'Every row: No. 1 Canada; the colour is added'],
      [
        'brown, heat-damaged 0.1',
        { colour: 'Brown', values: { heat_damaged_or_moldy: 0.1, total_damage: 0.1 } },
        G('No. 2 Canada Brown'),
        'Heat-damaged or moldy row: No. 1 Canada 0.0, No. 2 0.2',
      ],
      [
        'black, splits exactly 40',
        { colour: 'Black', values: { splits: 40 } },
        G('No. 5 Canada Black'),
        'Splits row: No. 4 Canada 30, No. 5 40',
      ],
    ],
  ),
];
