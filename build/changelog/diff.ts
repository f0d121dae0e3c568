// Pure: two published records of one class → the list of changes a client applies to go from one
// to the other (docs/contract.md, "Changes as data"). A threshold's change is one row per field of the
// cell; a factor's own field, one row; any other field of the record, one row with the whole value.
// Added or removed factors and grades carry the whole object; a change to the groups' layout (a
// group added, renamed or reordered, a factor moved) is one row, `factor_groups`, with the layout.
import type { RecordJson } from '../load/covered.ts';
import type { Change } from '../types.ts';

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

const change = (
  grain_id: string,
  factor_id: string | null,
  grade: string | null,
  field: string | null,
  from: unknown,
  to: unknown,
): Change => ({ grain_id, factor_id, grade, field, from: from ?? null, to: to ?? null });

const factorsOf = (r: RecordJson) => new Map(r.factor_groups.flatMap((g) => g.factors.map((f) => [f.factor_id, f])));
const layoutOf = (r: RecordJson) =>
  r.factor_groups.map((g) => ({
    group_id: g.group_id,
    group_label: g.group_label,
    factor_ids: g.factors.map((f) => f.factor_id),
  }));
const union = (a: Iterable<string>, b: Iterable<string>) => [...new Set([...a, ...b])];

/** from null: the class is new; to null: it was removed. Either way one row carries the record. */
export function diffRecords(grainId: string, from: RecordJson | null, to: RecordJson | null): Change[] {
  if (!from || !to) return from === to ? [] : [change(grainId, null, null, null, from, to)];
  const out: Change[] = [];
  for (const field of union(Object.keys(from), Object.keys(to))) {
    if (field !== 'factor_groups' && !same(from[field], to[field])) {
      out.push(change(grainId, null, null, field, from[field], to[field]));
    }
  }
  const [before, after] = [factorsOf(from), factorsOf(to)];
  // Layout: compare only the factors both sides have, so that an added factor is said once, as itself.
  const kept = (r: RecordJson) =>
    layoutOf(r).map((g) => ({ ...g, factor_ids: g.factor_ids.filter((id) => before.has(id) && after.has(id)) }));
  if (!same(kept(from), kept(to))) out.push(change(grainId, null, null, 'factor_groups', layoutOf(from), layoutOf(to)));
  for (const id of union(before.keys(), after.keys())) {
    const [a, b] = [before.get(id), after.get(id)];
    if (!a || !b) {
      out.push(change(grainId, id, null, null, a, b));
      continue;
    }
    for (const field of union(Object.keys(a), Object.keys(b))) {
      if (field !== 'thresholds' && !same(a[field], b[field]))
        out.push(change(grainId, id, null, field, a[field], b[field]));
    }
    for (const grade of union(Object.keys(a.thresholds), Object.keys(b.thresholds))) {
      const [x, y] = [a.thresholds[grade], b.thresholds[grade]];
      if (!x || !y) {
        out.push(change(grainId, id, grade, null, x, y));
        continue;
      }
      for (const field of union(Object.keys(x), Object.keys(y))) {
        if (!same(x[field], y[field])) out.push(change(grainId, id, grade, field, x[field], y[field]));
      }
    }
  }
  return out;
}

const show = (v: unknown) =>
  v === null ? 'none' : typeof v === 'object' ? `${JSON.stringify(v).slice(0, 60)}…` : JSON.stringify(v);

/** One change in words, for an editor: `ergot at "No. 1 CWRS": value 0.04 → 0.03`. */
export function describeChange(c: Change): string {
  const where = `${c.factor_id ?? ''}${c.grade === null ? '' : ` at ${JSON.stringify(c.grade)}`}`;
  const what = c.field ?? (c.grade !== null ? 'the cell' : c.factor_id !== null ? 'the factor' : 'the record');
  const values = c.from === null ? 'added' : c.to === null ? 'removed' : `${show(c.from)} → ${show(c.to)}`;
  return `${where ? `${where}: ` : ''}${what} ${values}`;
}
