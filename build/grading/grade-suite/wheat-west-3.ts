// Western wheat (CWHWS, CWRW): each answer read off the class's primary grade determination table
// on the authority's page; decided_by names the table, row and column.
import { F, G, group, type SuiteGroup, U } from './define.ts';
import { judged, mildew, TFM, THB, TSB, TWOC, zero } from './sample-parts.ts';

export const westWheat3: SuiteGroup[] = [
  group(
    'CWHWS',
    'Canada Western Hard White Spring',
    {
      values: { minimum_test_weight: 75, minimum_protein: 10, ...zero(TFM, THB, TWOC, TSB, 'total_sprouted') },
      judgments: judged('No. 1 CWHWS'),
    },
    [
      ['clean', {}, G('No. 1 CWHWS'), 'Standard of quality: test weight 75, protein 10.0 in the No. 1 CWHWS column'],
      [
        'test weight 74: No. 1 and No. 2 both need 75',
        { values: { minimum_test_weight: 74 } },
        G('No. 3 CWHWS'),
        'Minimum test weight row: 75 under No. 1 and No. 2 CWHWS, 72 under No. 3',
      ],
      [
        'contrasting classes exactly 3.0',
        { values: { contrasting_classes: 3, [TWOC]: 3 } },
        G('No. 1 CWHWS'),
        'Contrasting classes row: No. 1 CWHWS 3.0; Total wheats of other classes 3',
      ],
      [
        'contrasting classes 3.1',
        { values: { contrasting_classes: 3.1, [TWOC]: 3.1 } },
        G('No. 3 CWHWS'),
        'Contrasting classes row: 3.0 under No. 1 and No. 2, 5.0 under No. 3 CWHWS ' +
          '(the Total, in whole numbers, reads 3.1 as 3)',
      ],
      [
        'excreta past CW Feed',
        { values: { excreta: 0.04, [TFM]: 0.04 } },
        F('Wheat, Sample CW Account Excreta'),
        'Excreta row: CW Feed 0.03; last column "Wheat, Sample CW Account Excreta"',
      ],
      [
        'soundness judged CW Feed on account of mildew: floor No. 3',
        { judgments: { degree_of_soundness: 'CW Feed' }, accounts: mildew },
        G('No. 3 CWHWS'),
        'Note above the table: graded no lower than No. 3 CWHWS on account of mildew',
      ],
      [
        'total sprouted not measured',
        { drop: ['total_sprouted'] },
        U('total_sprouted'),
        'Total Sprouted row: counts sprouted kernels that have no row of their own',
      ],
    ],
  ),
  group(
    'CWRW',
    'Canada Western Red Winter: a Total damage',
    {
      values: {
        minimum_test_weight: 79,
        minimum_protein: 11,
        ...zero(TFM, TWOC, THB, 'total_smudge', 'total_sprouted', 'total_damage'),
      },
      judgments: judged('No. 1 CWRW'),
    },
    [
      ['clean', {}, G('No. 1 CWRW'), 'Standard of quality: test weight 79, protein 11.0 in the No. 1 CWRW column'],
      [
        'protein 10.9',
        { values: { minimum_protein: 10.9 } },
        G('No. 3 CWRW'),
        'Minimum protein row: 11.0 under No. 1 and No. 2 CWRW, No minimum under No. 3',
      ],
      ['total damage exactly 2', { values: { total_damage: 2 } }, G('No. 1 CWRW'), 'Total Damage row: No. 1 CWRW 2'],
      [
        'total damage 2.5 is reported 3',
        { values: { total_damage: 2.5 } },
        G('No. 2 CWRW'),
        'Total Damage row: No. 1 CWRW 2 (whole numbers), No. 2 CWRW 5',
      ],
      [
        'stones one place past No. 1',
        { values: { stones: 0.04, [TFM]: 0.04 } },
        G('No. 2 CWRW'),
        'Stones row: No. 1 CWRW 0.03, No. 2 CWRW 0.06',
      ],
      [
        'stones over 2.5%',
        { values: { stones: 2.6, [TFM]: 2.6 } },
        F('Wheat, Sample Salvage'),
        'Stones row, last column "Over 2.5% - Wheat, Sample Salvage"',
      ],
      [
        'soundness judged CW Feed on account of mildew: floor No. 3',
        { judgments: { degree_of_soundness: 'CW Feed' }, accounts: mildew },
        G('No. 3 CWRW'),
        'Note above the table: graded no lower than No. 3 CWRW on account of mildew',
      ],
      [
        'test weight not measured',
        { drop: ['minimum_test_weight'] },
        U('minimum_test_weight'),
        'Minimum test weight row: a minimum must be measured',
      ],
    ],
  ),
];
