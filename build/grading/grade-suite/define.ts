// How the suite's cases are written: a group per class, a clean sample (base) read off the page's
// best column, and each case as the change it makes to that sample, the answer the page gives and
// the row and column that decide it. The published file (/client/grade-suite.json) holds each
// case's whole sample, so a port needs nothing of this.
import type { Sample } from '../sample.ts';

export type Expected = {
  result?: 'grade' | 'fallthrough' | 'undetermined';
  grade?: string | null;
  missing?: string[];
  judgments_needed?: { factor_id: string; grade: string; standard: string | null }[];
  note?: string | null;
  field?: string;
};

interface SuiteCase {
  description: string;
  grain_id?: string;
  sample: Sample;
  expected: Expected;
  decided_by: string;
}

export interface SuiteGroup {
  grain_id: string;
  description: string;
  cases: SuiteCase[];
}

/** A change to the base sample: its maps are merged key by key; `drop` removes keys from values and judgments. */
type Change = Omit<Sample, 'region' | 'colour' | 'track'> & {
  region?: Sample['region'] | null;
  colour?: string | null;
  track?: string | null;
  drop?: string[];
};

function applyChange(base: Sample, change: Change): Sample {
  const { drop = [], ...rest } = change;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(rest)) {
    if (v === null) delete out[k];
    else if (typeof v === 'object' && !Array.isArray(v)) out[k] = { ...(out[k] as object), ...v };
    else out[k] = v;
  }
  for (const map of ['values', 'judgments'] as const) {
    const m = { ...(out[map] as Record<string, unknown> | undefined) };
    for (const id of drop) delete m[id];
    if (out[map] !== undefined) out[map] = m;
  }
  return out as Sample;
}

/** One case: [what it shows, the change to the base, the answer, the row and column that decide it]. */
export type CaseLine = [description: string, change: Change, expected: Expected, decidedBy: string, grainId?: string];

export function group(grain_id: string, description: string, base: Sample, lines: CaseLine[]): SuiteGroup {
  return {
    grain_id,
    description,
    cases: lines.map(([d, change, expected, decided_by, id]) => ({
      description: d,
      ...(id ? { grain_id: id } : {}),
      sample: applyChange(base, change),
      expected,
      decided_by,
    })),
  };
}

export const G = (grade: string): Expected => ({ result: 'grade', grade });
export const F = (grade: string | null): Expected => ({ result: 'fallthrough', grade });
export const U = (...missing: string[]): Expected => ({ result: 'undetermined', grade: null, missing });
export const E = (field: string): Expected => ({ field });
