// Checks the dataset as editors wrote it and turns it into published records. Every problem is
// reported with file, line, column and field, all in one run; records come back only when there
// are none (docs/dataset-editing.md: nothing is published while any error exists).
import { printedNumber } from '../client/printed.ts';
import type { DatasetError } from '../load/dataset-error.ts';
import { errorAt, type LoadedDataset, type LoadedFile, type Path } from '../load/load.ts';
import type { Factor, GrainRecord, SourceEntry, SourceGrain, Threshold } from '../types.ts';
import { readCell } from './cells.ts';
import { cropYearsOf, type PastYears, recordYearProblem } from './crop-years.ts';
import { outcomesOf } from './outcomes.ts';
import type { SchemaChecks } from './schema-errors.ts';

export interface Dataset {
  grains: GrainRecord[];
  changelog: SourceEntry[];
  past?: PastYears /* each class's last record of every past crop year (dataset/covered/past/) */;
}

/** Lower grades must not be stricter: a maximum never falls, a minimum never rises (per ladder). */
function monotonicProblem(f: Factor, ladders: string[][]): string | null {
  for (const ladder of ladders) {
    let prev: { grade: string; v: number } | null = null;
    for (const grade of ladder) {
      const t = f.thresholds[grade]!;
      const v =
        t.value_type === 'numeric'
          ? (t.value as number)
          : t.value_type === 'no_limit'
            ? f.threshold_direction === 'minimum'
              ? -Infinity
              : Infinity
            : null;
      // A judgement is no stricter than the limits above it: the grader answers it from them (docs/grading.md).
      if (t.value_type === 'qualitative_judgment' && prev && !Number.isFinite(prev.v))
        return `the judgement for "${grade}" follows "${prev.grade}", which has no limit: check the transcription`;
      if (v === null) continue;
      if (prev) {
        const stricter = f.threshold_direction === 'maximum' ? v < prev.v : v > prev.v;
        if (stricter) {
          return (
            `the ${f.threshold_direction} for "${grade}" (${fmt(t)}) ` +
            `is stricter than for the higher grade "${prev.grade}"; ` +
            'check the transcription, or give the row a monotonic_waiver with the reason'
          );
        }
      }
      prev = { grade, v };
    }
  }
  return null;
}
const fmt = (t: Threshold) => (t.value_type === 'numeric' ? printedNumber(t) : t.value_type.replace('_', ' '));
const squash = (s: string) => s.toLowerCase().replace(/[^a-z0-9%]+/g, '');

function toRecord(file: LoadedFile, src: SourceGrain, err: (path: Path, message: string) => void): GrainRecord {
  const grades = src.grades;
  if (new Set(grades).size !== grades.length) err(['grades'], 'a grade is listed twice');
  const footnotes = src.footnotes ?? {};
  const ladders = src.variety_tracks?.map((t) => t.grades) ?? [grades];
  if (src.variety_tracks) {
    const seen = src.variety_tracks.flatMap((t) => t.grades);
    for (const [i, t] of src.variety_tracks.entries()) {
      for (const [j, g] of t.grades.entries())
        if (!grades.includes(g)) err(['variety_tracks', i, 'grades', j], `"${g}" is not one of the grades`);
    }
    for (const g of grades) {
      const n = seen.filter((x) => x === g).length;
      if (n !== 1)
        err(['variety_tracks'], `the tracks must share out the grades, each exactly once; "${g}" is in ${n}`);
    }
  }
  for (const [i, r] of (src.grade_floor_rules ?? []).entries()) {
    if (!grades.includes(r.floor_grade))
      err(['grade_floor_rules', i, 'floor_grade'], `"${r.floor_grade}" is not one of the grades`);
  }
  const groupIds = new Set<string>();
  const factorIds = new Set<string>();
  const factor_groups = src.factor_groups.map((g, gi) => {
    if (groupIds.has(g.group_id)) err(['factor_groups', gi, 'group_id'], `the group id "${g.group_id}" is used twice`);
    groupIds.add(g.group_id);
    const siblings = new Set(g.factors.map((f) => f.factor_id));
    const factors = g.factors.map((f, fi): Factor => {
      const at = (...p: Path): Path => ['factor_groups', gi, 'factors', fi, ...p];
      if (factorIds.has(f.factor_id))
        err(at('factor_id'), `the factor id "${f.factor_id}" is used twice in this grain`);
      factorIds.add(f.factor_id);
      const direction = f.threshold_direction ?? 'maximum';
      const unit = f.unit ?? (direction === 'qualitative' ? '' : '%');
      if (direction === 'qualitative' && unit) err(at('unit'), 'a qualitative factor has no unit');
      if (f.thresholds.length !== grades.length) {
        err(
          at('thresholds'),
          `has ${f.thresholds.length} cells but the grain has ${grades.length} grades (${grades.join(', ')})`,
        );
      }
      const thresholds: Record<string, Threshold> = {};
      f.thresholds.forEach((raw, k) => {
        const cell = readCell(raw, {
          direction,
          hasAltUnit: Boolean(f.unit_alt),
          source: (sub) => file.source([...at('thresholds', k), ...sub]),
        });
        if ('error' in cell)
          err([...at('thresholds', k), ...(cell.at ?? [])], `${grades[k] ?? `cell ${k + 1}`}: ${cell.error}`);
        else if (grades[k] !== undefined) thresholds[grades[k]!] = cell.ok;
      });
      if (f.aggregates && (f.unlisted_parts === undefined || f.parts_stated === undefined)) {
        err(
          at('aggregates'),
          'a Total says which parts its label names without a row: ' +
            'unlisted_parts ([] when none) and parts_stated (all or not_stated)',
        );
      }
      if (!f.aggregates && (f.unlisted_parts !== undefined || f.parts_stated !== undefined)) {
        err(
          at(f.unlisted_parts !== undefined ? 'unlisted_parts' : 'parts_stated'),
          'only a Total (a row with aggregates) has parts',
        );
      }
      for (const [k, a] of (f.aggregates ?? []).entries()) {
        if (a === f.factor_id) err(at('aggregates', k), 'a total cannot sum itself');
        else if (!siblings.has(a)) err(at('aggregates', k), `"${a}" is not a factor of the group "${g.group_id}"`);
      }
      if (f.footnote_ref !== undefined && !(f.footnote_ref in footnotes)) {
        err(at('footnote_ref'), `there is no footnote "${f.footnote_ref}" in footnotes`);
      }
      if (f.fallthrough_conditions) {
        if (!f.fallthrough) err(at('fallthrough_conditions'), 'conditions need the fallthrough text they come from');
        for (const [k, c] of f.fallthrough_conditions.entries()) {
          if (f.fallthrough && !squash(f.fallthrough).includes(squash(c.grade))) {
            err(at('fallthrough_conditions', k, 'grade'), `"${c.grade}" does not appear in the fallthrough text`);
          }
        }
      }
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
      const lowest = ladders.map((l) => thresholds[l[l.length - 1]!]).filter((t) => t !== undefined);
      const typed = outcomesOf(factor, {
        canFail: lowest.some((t) => t.value_type !== 'no_limit' && t.value_type !== 'not_applicable'),
        limit: (lowest.find((t) => t.value_type === 'numeric')?.value as number | null | undefined) ?? null,
      });
      for (const e of typed.errors) err(at(...e.at), e.message);
      factor.fallthrough_outcomes = typed.outcomes;
      if (direction !== 'qualitative' && Object.keys(thresholds).length === grades.length) {
        const problem = monotonicProblem(factor, ladders);
        if (problem && !f.monotonic_waiver) err(at('thresholds'), problem);
        if (f.monotonic_waiver && Object.values(thresholds).some((t) => t.value_type === 'qualitative_judgment'))
          err(at('monotonic_waiver'), 'the grader answers a judgement cell from the limits above it: no waiver');
        if (!problem && f.monotonic_waiver)
          err(
            at('monotonic_waiver'),
            'the row never gets stricter at a lower grade, so the waiver is not needed; remove it',
          );
      } else if (f.monotonic_waiver) {
        err(at('monotonic_waiver'), 'only a numeric row can be waived');
      }
      return factor;
    });
    return { group_id: g.group_id, group_label: g.group_label, factors };
  });
  if (Boolean(src.colour_modifier) !== Boolean(src.colours)) {
    err(
      ['colours'],
      'a class whose grade names take a colour lists its colours (colour_modifier and colours go together)',
    );
  }
  for (const [i, r] of (src.footnote_rules ?? []).entries()) {
    const at = (...p: Path): Path => ['footnote_rules', i, ...p];
    if (!(r.footnote in footnotes)) err(at('footnote'), `there is no footnote "${r.footnote}" in footnotes`);
    for (const [k, id] of (r.factor_ids ?? []).entries())
      if (!factorIds.has(id)) err(at('factor_ids', k), `"${id}" is not a factor`);
    if (r.total_id !== undefined && !factorIds.has(r.total_id)) err(at('total_id'), `"${r.total_id}" is not a factor`);
    if (r.colour !== undefined && !src.colours?.includes(r.colour))
      err(at('colour'), `"${r.colour}" is not one of colours`);
    if (r.track !== undefined && !src.variety_tracks?.some((t) => t.track_id === r.track))
      err(at('track'), `no track "${r.track}"`);
  }
  for (const [i, r] of (src.grade_floor_rules ?? []).entries()) {
    for (const [k, id] of r.factor_ids.entries()) {
      if (!factorIds.has(id)) err(['grade_floor_rules', i, 'factor_ids', k], `"${id}" is not a factor of this grain`);
    }
  }
  return {
    grain_id: src.grain_id,
    grain_name: src.grain_name,
    kind: src.kind as GrainRecord['kind'],
    region: (src.region ?? null) as GrainRecord['region'],
    use_class: (src.use_class ?? null) as GrainRecord['use_class'],
    effective_crop_year: src.effective_crop_year,
    crop_years: [src.effective_crop_year],
    coverage_status: (src.coverage_status ?? 'complete') as GrainRecord['coverage_status'],
    grades,
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
    footnotes,
  };
}

/** One grain file on its own: schema, cells and cross-checks. */
export function validateGrainFile(
  file: LoadedFile,
  checks: SchemaChecks,
): { errors: DatasetError[]; record?: GrainRecord } {
  const { errors, onlyUnknownFields } = checks.grain(file);
  // An unknown (misspelt) field is ignored by what follows, so it must not hide the file's other
  // errors: the editor gets them all in one run (docs/dataset-editing.md). Any other schema error
  // leaves values the cross-checks cannot read.
  if (!onlyUnknownFields) return { errors };
  const err = (path: Path, message: string) => errors.push(errorAt(file, path, message));
  // The record is returned even with cross-check errors, so check-authority can compare it.
  return { errors, record: toRecord(file, file.data as SourceGrain, err) };
}

/** `checks`: the schemas compiled (schema-errors.ts), made once by the caller for all its validations. */
export function validateDataset(
  ds: LoadedDataset,
  checks: SchemaChecks,
): { errors: DatasetError[]; dataset?: Dataset } {
  const errors: DatasetError[] = [];
  const at = (file: LoadedFile, path: Path, message: string) => errors.push(errorAt(file, path, message));
  errors.push(...checks.index(ds.index).errors);
  const ids: string[] = (ds.index.data as { grains?: string[] } | undefined)?.grains ?? [];
  for (const [i, id] of ids.entries())
    if (ids.indexOf(id) !== i) at(ds.index, ['grains', i], `"${id}" is listed twice`);
  const grains: GrainRecord[] = [];
  for (const file of ds.grains) {
    const { errors: e, record } = validateGrainFile(file, checks);
    errors.push(...e);
    if (record && !e.length) {
      const expected = file.file.replace(/^.*\//, '').replace(/\.yaml$/, '');
      if (record.grain_id !== expected)
        at(file, ['grain_id'], `is "${record.grain_id}" but the file is named ${expected}.yaml`);
      if (recordYearProblem(record)) at(file, ['effective_crop_year'], recordYearProblem(record)!);
      record.crop_years = cropYearsOf(record, ds.coverage);
      grains.push(record);
    }
  }

  const clErrors = checks.changelog(ds.changelog).errors;
  errors.push(...clErrors);
  const changelog: SourceEntry[] = clErrors.length ? [] : (ds.changelog.data as { entries: SourceEntry[] }).entries;
  const seen = new Set<string>();
  changelog.forEach((c, i) => {
    if (seen.has(c.id)) at(ds.changelog, ['entries', i, 'id'], `the id "${c.id}" is used twice`);
    seen.add(c.id);
    c.grain_ids_affected.forEach((g, k) => {
      // A class an entry removed is no longer in index.yaml, but what the changelog covers keeps it.
      if (!ids.includes(g) && !ds.coverage?.records.has(g))
        at(ds.changelog, ['entries', i, 'grain_ids_affected', k], `"${g}" is not a grain in index.yaml`);
    });
    c.changes?.forEach((change, k) => {
      if (!c.grain_ids_affected.includes(change.grain_id))
        at(ds.changelog, ['entries', i, 'changes', k, 'grain_id'], `"${change.grain_id}" is not in grain_ids_affected`);
    });
    if (Number.isNaN(Date.parse(c.created_at)) || Number.isNaN(Date.parse(c.effective_date))) {
      at(ds.changelog, ['entries', i], 'a date that does not exist');
    }
  });

  errors.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column);
  return errors.length ? { errors } : { errors, dataset: { grains, changelog, past: ds.coverage?.past } };
}

export const formatError = (e: DatasetError) => `${e.file}:${e.line}:${e.column}: ${e.field}: ${e.message}`;
