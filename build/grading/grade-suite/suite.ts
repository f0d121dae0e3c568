// The conformance suite (docs/grading.md "Checking a port"): every group, in the dataset's order of
// classes, as /client/grade-suite.json publishes it.
import type { SuiteGroup } from './define.ts';
import { otherGrains } from './other-grains.ts';
import { eastWheat } from './wheat-east.ts';
import { westWheat1 } from './wheat-west-1.ts';
import { westWheat2 } from './wheat-west-2.ts';
import { westWheat3 } from './wheat-west-3.ts';

export type { SuiteGroup } from './define.ts';

const ORDER = ['CWRS', 'CWAD', 'CPSR', 'CANOLA', 'BARLEY_GP_CW', 'BARLEY_GP_CE', 'CORN_CW', 'CORN_CE', 'SOYBEANS'];
const all = [...westWheat1, ...otherGrains, ...westWheat3, ...westWheat2, ...eastWheat];
const rank = (id: string) => (ORDER.includes(id) ? ORDER.indexOf(id) : ORDER.length);

/** The groups, the nine classes of the interface's table first, then the rest as written. */
export const gradeSuite: SuiteGroup[] = [...all].sort((a, b) => rank(a.grain_id) - rank(b.grain_id));
