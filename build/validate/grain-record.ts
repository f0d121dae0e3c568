// One grain file's values → its published record, in named steps a test can call: the ladders, each
// factor (its cells, its parts and references, its fall-through outcomes, its waiver), the rules
// that name factors, and the record's shape. Each step returns the problems it finds, at a path in
// the file; validate.ts locates them (file, line, column) and reports them all in one run.
import type { LoadedFile, Path, Problem } from '../load/load.ts';
import type { CompiledRecord, Factor, SourceGrain, Threshold } from '../types.ts';
import { readCell } from './cells.ts';
import { waiverProblems } from './monotonic.ts';
import { outcomesOf } from './outcomes.ts';

type SourceGroup = SourceGrain['factor_groups'][number];
type SourceFactor = SourceGroup['factors'][number];

const squash = (s: string) => s.toLowerCase().replace(/[^a-z0-9%]+/g, '');

/** The grades and the ladders they are read down: a grade listed twice, tracks that do not share out the grades. */
export function ladderProblems(src: SourceGrain): Problem[] {
  const grades = src.grades;
  const out: Problem[] = [];
  if (new Set(grades).size !== grades.length) out.push({ at: ['grades'], message: 'a grade is listed twice' });
  if (src.variety_tracks) {
    const seen = src.variety_tracks.flatMap((t) => t.grades);
    for (const [i, t] of src.variety_tracks.entries()) {
      for (const [j, g] of t.grades.entries())
        if (!grades.includes(g))
          out.push({ at: ['variety_tracks', i, 'grades', j], message: `"${g}" is not one of the grades` });
    }
    for (const g of grades) {
      const n = seen.filter((x) => x === g).length;
      if (n !== 1)
        out.push({
          at: ['variety_tracks'],
          message: `the tracks must share out the grades, each exactly once; "${g}" is in ${n}`,
        });
    }
  }
  for (const [i, r] of (src.grade_floor_rules ?? []).entries()) {
    if (!grades.includes(r.floor_grade))
      out.push({ at: ['grade_floor_rules', i, 'floor_grade'], message: `"${r.floor_grade}" is not one of the grades` });
  }
  return out;
}

/** A row's cells read (cells.ts), each under its grade; `source` gives a cell's text as typed. */
export function rowThresholds(
  f: SourceFactor,
  grades: string[],
  source: (path: Path) => string | undefined,
): { thresholds: Record<string, Threshold>; problems: Problem[] } {
  const direction = f.threshold_direction ?? 'maximum';
  const problems: Problem[] = [];
  if (f.thresholds.length !== grades.length) {
    problems.push({
      at: ['thresholds'],
      message: `has ${f.thresholds.length} cells but the grain has ${grades.length} grades (${grades.join(', ')})`,
    });
  }
  const thresholds: Record<string, Threshold> = {};
  f.thresholds.forEach((raw, k) => {
    const cell = readCell(raw, { direction, hasAltUnit: Boolean(f.unit_alt), source: (sub) => source([k, ...sub]) });
    if ('error' in cell)
      problems.push({
        at: ['thresholds', k, ...(cell.at ?? [])],
        message: `${grades[k] ?? `cell ${k + 1}`}: ${cell.error}`,
      });
    else if (grades[k] !== undefined) thresholds[grades[k]!] = cell.ok;
  });
  return { thresholds, problems };
}

/** What a row names: a Total's parts, the footnote it refers to, the grades its fall-through text gives. */
export function rowReferenceProblems(
  f: SourceFactor,
  group: { group_id: string; factorIds: Set<string> },
  footnotes: Record<string, string>,
): Problem[] {
  const out: Problem[] = [];
  if (f.aggregates && (f.unlisted_parts === undefined || f.parts_stated === undefined)) {
    out.push({
      at: ['aggregates'],
      message:
        'a Total says which parts its label names without a row: ' +
        'unlisted_parts ([] when none) and parts_stated (all or not_stated)',
    });
  }
  if (!f.aggregates && (f.unlisted_parts !== undefined || f.parts_stated !== undefined)) {
    out.push({
      at: [f.unlisted_parts !== undefined ? 'unlisted_parts' : 'parts_stated'],
      message: 'only a Total (a row with aggregates) has parts',
    });
  }
  for (const [k, a] of (f.aggregates ?? []).entries()) {
    if (a === f.factor_id) out.push({ at: ['aggregates', k], message: 'a total cannot sum itself' });
    else if (!group.factorIds.has(a))
      out.push({ at: ['aggregates', k], message: `"${a}" is not a factor of the group "${group.group_id}"` });
  }
  if (f.footnote_ref !== undefined && !(f.footnote_ref in footnotes)) {
    out.push({ at: ['footnote_ref'], message: `there is no footnote "${f.footnote_ref}" in footnotes` });
  }
  if (f.fallthrough_conditions) {
    if (!f.fallthrough)
      out.push({ at: ['fallthrough_conditions'], message: 'conditions need the fallthrough text they come from' });
    for (const [k, c] of f.fallthrough_conditions.entries()) {
      if (f.fallthrough && !squash(f.fallthrough).includes(squash(c.grade))) {
        out.push({
          at: ['fallthrough_conditions', k, 'grade'],
          message: `"${c.grade}" does not appear in the fallthrough text`,
        });
      }
    }
  }
  return out;
}

/** One row → its published factor, and the problems at paths within the row. */
function factorOf(
  f: SourceFactor,
  ctx: {
    grades: string[];
    ladders: string[][];
    footnotes: Record<string, string>;
    group: { group_id: string; factorIds: Set<string> };
    source: (path: Path) => string | undefined;
  },
): { factor: Factor; problems: Problem[] } {
  const direction = f.threshold_direction ?? 'maximum';
  const unit = f.unit ?? (direction === 'qualitative' ? '' : '%');
  const problems: Problem[] = [];
  if (direction === 'qualitative' && unit) problems.push({ at: ['unit'], message: 'a qualitative factor has no unit' });
  const cells = rowThresholds(f, ctx.grades, (p) => ctx.source(['thresholds', ...p]));
  const thresholds = cells.thresholds;
  problems.push(...cells.problems, ...rowReferenceProblems(f, ctx.group, ctx.footnotes));
  const factor: Factor = {
    factor_id: f.factor_id,
    factor_label: f.factor_label,
    unit,
    unit_alt: f.unit_alt ?? null,
    threshold_direction: direction,
    is_aggregate: Boolean(f.aggregates),
    aggregates: f.aggregates ?? null,
    unlisted_parts: f.aggregates ? (f.unlisted_parts ?? []) : null,
    parts_stated: f.aggregates ? (f.parts_stated ?? 'not_stated') : null,
    footnote_ref: f.footnote_ref ?? null,
    thresholds,
    fallthrough: f.fallthrough ?? null,
    fallthrough_conditions:
      f.fallthrough_conditions?.map((c) => ({
        condition: c.condition,
        region: (c.region ?? null) as never,
        grade: c.grade,
      })) ?? null,
    fallthrough_outcomes: null,
  };
  const lowest = ctx.ladders.map((l) => thresholds[l[l.length - 1]!]).filter((t) => t !== undefined);
  const typed = outcomesOf(factor, {
    canFail: lowest.some((t) => t.value_type !== 'no_limit' && t.value_type !== 'not_applicable'),
    limit: (lowest.find((t) => t.value_type === 'numeric')?.value as number | null | undefined) ?? null,
  });
  problems.push(...typed.errors.map((e) => ({ at: e.at, message: e.message })));
  factor.fallthrough_outcomes = typed.outcomes;
  problems.push(...waiverProblems(factor, Boolean(f.monotonic_waiver), ctx.ladders, ctx.grades.length));
  return { factor, problems };
}

/** The rules that name factors, colours and tracks (colour rules, footnote rules, grade floors). */
export function ruleProblems(src: SourceGrain, factorIds: Set<string>): Problem[] {
  const out: Problem[] = [];
  const footnotes = src.footnotes ?? {};
  if (Boolean(src.colour_modifier) !== Boolean(src.colours)) {
    out.push({
      at: ['colours'],
      message: 'a class whose grade names take a colour lists its colours (colour_modifier and colours go together)',
    });
  }
  for (const [i, r] of (src.footnote_rules ?? []).entries()) {
    const at = (...p: Path): Path => ['footnote_rules', i, ...p];
    if (!(r.footnote in footnotes))
      out.push({ at: at('footnote'), message: `there is no footnote "${r.footnote}" in footnotes` });
    for (const [k, id] of (r.factor_ids ?? []).entries())
      if (!factorIds.has(id)) out.push({ at: at('factor_ids', k), message: `"${id}" is not a factor` });
    if (r.total_id !== undefined && !factorIds.has(r.total_id))
      out.push({ at: at('total_id'), message: `"${r.total_id}" is not a factor` });
    if (r.colour !== undefined && !src.colours?.includes(r.colour))
      out.push({ at: at('colour'), message: `"${r.colour}" is not one of colours` });
    if (r.track !== undefined && !src.variety_tracks?.some((t) => t.track_id === r.track))
      out.push({ at: at('track'), message: `no track "${r.track}"` });
  }
  for (const [i, r] of (src.grade_floor_rules ?? []).entries()) {
    for (const [k, id] of r.factor_ids.entries()) {
      if (!factorIds.has(id))
        out.push({ at: ['grade_floor_rules', i, 'factor_ids', k], message: `"${id}" is not a factor of this grain` });
    }
  }
  return out;
}

/** The file's values as GET /api/grains/{grain_id} publishes them, the factor groups read already. */
function publishedGrain(src: SourceGrain, factor_groups: CompiledRecord['factor_groups']): CompiledRecord {
  return {
    grain_id: src.grain_id,
    grain_name: src.grain_name,
    kind: src.kind as CompiledRecord['kind'],
    region: (src.region ?? null) as CompiledRecord['region'],
    use_class: (src.use_class ?? null) as CompiledRecord['use_class'],
    effective_crop_year: src.effective_crop_year,
    crop_years: [src.effective_crop_year],
    coverage_status: (src.coverage_status ?? 'complete') as CompiledRecord['coverage_status'],
    grades: src.grades,
    variety_tracks: src.variety_tracks ?? null,
    colour_modifier: src.colour_modifier ?? false,
    colours: src.colours ?? null,
    size_modifier: src.size_modifier ?? false,
    notes: src.notes ?? [],
    footnote_rules: (src.footnote_rules ?? []).map((r) => ({
      footnote: r.footnote,
      effect: r.effect,
      factor_ids: r.factor_ids ?? [],
      total_id: r.total_id ?? null,
      colour: r.colour ?? null,
      track: r.track ?? null,
      suffix: r.suffix ?? null,
    })),
    source_url: src.source_url,
    last_scraped: src.last_scraped,
    fallthrough_label: src.fallthrough_label,
    grade_floor_rules: (src.grade_floor_rules ?? []).map((r) => ({
      account: r.account,
      floor_grade: r.floor_grade,
      note: r.note,
      factor_ids: r.factor_ids,
    })),
    factor_groups,
    footnotes: src.footnotes ?? {},
  };
}

/**
 * A grain file that passed its schema → the record it publishes, and every problem its cross-checks
 * find. The record is read whatever the problems (check-authority compares it all the same); it is
 * published only when there are none.
 */
export function grainRecord(file: LoadedFile, src: SourceGrain): { record: CompiledRecord; problems: Problem[] } {
  const problems = ladderProblems(src);
  const ladders = src.variety_tracks?.map((t) => t.grades) ?? [src.grades];
  const groupIds = new Set<string>();
  const factorIds = new Set<string>();
  const factor_groups = src.factor_groups.map((g, gi) => {
    if (groupIds.has(g.group_id))
      problems.push({ at: ['factor_groups', gi, 'group_id'], message: `the group id "${g.group_id}" is used twice` });
    groupIds.add(g.group_id);
    const group = { group_id: g.group_id, factorIds: new Set(g.factors.map((f) => f.factor_id)) };
    const factors = g.factors.map((f, fi): Factor => {
      const row: Path = ['factor_groups', gi, 'factors', fi];
      if (factorIds.has(f.factor_id))
        problems.push({
          at: [...row, 'factor_id'],
          message: `the factor id "${f.factor_id}" is used twice in this grain`,
        });
      factorIds.add(f.factor_id);
      const { factor, problems: inRow } = factorOf(f, {
        grades: src.grades,
        ladders,
        footnotes: src.footnotes ?? {},
        group,
        source: (p) => file.source([...row, ...p]),
      });
      problems.push(...inRow.map((p) => ({ at: [...row, ...p.at], message: p.message })));
      return factor;
    });
    return { group_id: g.group_id, group_label: g.group_label, factors };
  });
  problems.push(...ruleProblems(src, factorIds));
  return { record: publishedGrain(src, factor_groups), problems };
}
