// The sample a grader is given, and its check against the record: a malformed sample, or a value
// no sample can have (docs/grading.md "The sample"), is answered with the field at fault and the
// range, never thrown on and never graded. Bundled with the grader (no dependency).
import type { Factor, GrainRecord } from '../types.ts';

export interface Sample {
  values?: Record<string, number>;
  alt_values?: Record<string, number>;
  judgments?: Record<string, string>;
  accounts?: Record<string, string>;
  track?: string;
  region?: 'western' | 'eastern';
  colour?: string;
  exclude?: string[];
}

export interface GradeError {
  error: string;
  field: string;
}

/** What the grader reads of a record: a synced record has all of it. */
export type RecordToGrade = Pick<
  GrainRecord,
  'grain_id' | 'grades' | 'variety_tracks' | 'colour_modifier' | 'colours' | 'grade_floor_rules' | 'footnote_rules'
> & {
  factor_groups: { factors: Factor[] }[];
};

/** What a value in a unit can be: a percentage 0 to 100; a test weight above 0 and no heavier than water. */
function rangeOf(unit: string): { min: number; above: boolean; max: number | null; text: string } {
  if (unit === '%') return { min: 0, above: false, max: 100, text: 'from 0 to 100 %' };
  if (unit === 'kg/hL') return { min: 0, above: true, max: 100, text: 'more than 0 and at most 100 kg/hL' };
  if (unit === 'g/0.5 L') return { min: 0, above: true, max: 500, text: 'more than 0 and at most 500 g/0.5 L' };
  return { min: 0, above: false, max: null, text: `0 or more${unit ? ` ${unit}` : ''}` };
}

/** Why a value cannot be real for its factor (naming the factor and the range), or null. */
function outOfRange(label: string, unit: string, v: number): string | null {
  const r = rangeOf(unit);
  const low = r.above ? v <= r.min : v < r.min;
  if (!low && (r.max === null || v <= r.max)) return null;
  return `${label} cannot be ${v}: it must be ${r.text}`;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Checks the sample's shape against the record; the first problem, naming its field. */
export function checkSample(record: RecordToGrade, sample: unknown): GradeError | null {
  if (!isObject(sample)) return { error: 'the sample must be a JSON object', field: '(sample)' };
  const factors = new Map(record.factor_groups.flatMap((g) => g.factors.map((f) => [f.factor_id, f] as const)));
  const ids = new Set(factors.keys());
  const partOwner = new Map(
    record.factor_groups.flatMap((g) =>
      g.factors.flatMap((f) => Object.values(f.thresholds).flatMap((t) => (t.partial ? [[t.partial.key, f]] : []))),
    ) as [string, Factor][],
  );
  const partialKeys = new Set(partOwner.keys());
  const known = ['values', 'alt_values', 'judgments', 'accounts', 'track', 'region', 'colour', 'exclude'];
  for (const k of Object.keys(sample))
    if (!known.includes(k)) return { error: `unknown field (use ${known.join(', ')})`, field: k };
  const map = (name: string, ok: (v: unknown, id: string) => string | null, keys = ids): GradeError | null => {
    const m = sample[name];
    if (m === undefined) return null;
    if (!isObject(m)) return { error: 'must be an object keyed by factor_id', field: name };
    for (const [id, v] of Object.entries(m)) {
      const field = `${name}.${id}`;
      if (!keys.has(id)) return { error: `not a factor of ${record.grain_id}`, field };
      const problem = ok(v, id);
      if (problem) return { error: problem, field };
    }
    return null;
  };
  const number = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? null : 'must be a finite number');
  /** A measured value: a number its factor's unit can hold (a partial limit's parts are in the factor's unit). */
  const amount = (alt: boolean) => (v: unknown, id: string) => {
    const f = factors.get(id) ?? partOwner.get(id);
    const unit = alt ? (f?.unit_alt ?? '') : (f?.unit ?? '%');
    const label = `${f?.factor_label ?? id}${partOwner.has(id) ? ` (${id.replace(/_/g, ' ')})` : ''}`;
    return number(v) ?? outOfRange(label, unit, v as number);
  };
  const grade = (v: unknown) =>
    typeof v === 'string' && record.grades.includes(v) ? null : `must be a grade of ${record.grain_id}`;
  const text = (v: unknown) => (typeof v === 'string' && v.trim() ? null : 'must be text');
  const problem =
    map('values', amount(false), new Set([...ids, ...partialKeys])) ??
    map('alt_values', amount(true)) ??
    map('judgments', grade) ??
    map('accounts', text);
  if (problem) return problem;
  const tracks = record.variety_tracks?.map((t) => t.track_id) ?? [];
  if (sample.track !== undefined && !tracks.includes(sample.track as string)) {
    return {
      error: tracks.length ? `must be one of ${tracks.join(', ')}` : `${record.grain_id} has no variety tracks`,
      field: 'track',
    };
  }
  if (sample.region !== undefined && sample.region !== 'western' && sample.region !== 'eastern') {
    return { error: 'must be "western" or "eastern"', field: 'region' };
  }
  if (sample.colour !== undefined && text(sample.colour)) return { error: 'must be text', field: 'colour' };
  if (sample.colour !== undefined && record.colours && !record.colours.includes(sample.colour as string)) {
    return { error: `must be one of ${record.colours.join(', ')}`, field: 'colour' };
  }
  const exclude = sample.exclude;
  if (exclude !== undefined) {
    if (!Array.isArray(exclude)) return { error: 'must be an array of factor ids', field: 'exclude' };
    for (const [i, id] of exclude.entries()) {
      if (typeof id !== 'string' || !ids.has(id))
        return { error: `not a factor of ${record.grain_id}`, field: `exclude[${i}]` };
    }
  }
  return null;
}
