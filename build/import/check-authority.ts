// Compares the dataset with the authority's pages, cell by cell. The page is re-imported through
// the same importer (with the editor's judgements carried over), and the two records are compared
// on everything the page states: grades, labels, units, every threshold, fall-throughs,
// footnotes, floor rules. Judged fields (ids, aggregates, conditions) are not the page's to check.
import { printedValue } from '../grading/printed.ts';
import { type LoadedFile, loadYaml } from '../load/load.ts';
import type { CompiledRecord, Factor, Threshold } from '../types.ts';
import type { SchemaChecks } from '../validate/schema-errors.ts';
import { validateGrainFile } from '../validate/validate.ts';
import { draftGrain, type SourceGrain } from './draft-grain.ts';
import { toYaml } from './grain-yaml.ts';
import { parsePage } from './parse-page.ts';

export interface Difference {
  grain_id: string;
  where: string;
  dataset: string;
  authority: string;
}

const show = (v: unknown) => (v === undefined ? '(absent)' : typeof v === 'string' ? v : JSON.stringify(v));
const cell = (t: Threshold | undefined) =>
  !t
    ? '(absent)'
    : t.value_type === 'numeric'
      ? `${printedValue(t)}${t.threshold_note ? ` [${t.threshold_note}]` : ''}`
      : `${t.value_type}${t.value !== null ? ` "${t.value}"` : ''}${t.threshold_note ? ` [${t.threshold_note}]` : ''}`;

/** The record the authority's page gives for a grain file's section. */
export function authorityRecord(
  html: string,
  file: LoadedFile,
  checks: SchemaChecks,
): { record?: CompiledRecord; problem?: string } {
  const src = file.data as SourceGrain;
  const section = parsePage(html).sections.find((s) => s.name === src.source_section);
  if (!section) return { problem: `the page has no section "${src.source_section}"` };
  const draft = draftGrain(section, src, src);
  const { record, errors } = validateGrainFile(loadYaml(toYaml(draft, ''), `${src.grain_id} (authority)`), checks);
  if (!record) return { problem: errors.map((e) => e.message).join('; ') };
  return { record };
}

export function compareRecords(ours: CompiledRecord, theirs: CompiledRecord): Difference[] {
  const out: Difference[] = [];
  const diff = (where: string, a: unknown, b: unknown) => {
    if (JSON.stringify(a) !== JSON.stringify(b))
      out.push({ grain_id: ours.grain_id, where, dataset: show(a), authority: show(b) });
  };
  const id = ours.grain_id;
  diff(`${id} › grades`, ours.grades, theirs.grades);
  diff(`${id} › fallthrough_label`, ours.fallthrough_label, theirs.fallthrough_label);
  diff(`${id} › colour_modifier`, ours.colour_modifier, theirs.colour_modifier);
  for (const key of new Set([...Object.keys(ours.footnotes), ...Object.keys(theirs.footnotes)])) {
    diff(`${id} › footnote ${key}`, ours.footnotes[key], theirs.footnotes[key]);
  }
  const rules = (r: CompiledRecord) => r.grade_floor_rules.map((x) => `${x.floor_grade}: ${x.note}`);
  diff(`${id} › grade floor rules`, rules(ours), rules(theirs));

  const groups = Math.max(ours.factor_groups.length, theirs.factor_groups.length);
  for (let g = 0; g < groups; g++) {
    const a = ours.factor_groups[g];
    const b = theirs.factor_groups[g];
    const label = b?.group_label ?? a?.group_label ?? `group ${g + 1}`;
    if (!a || !b) {
      diff(`${id} › table ${g + 1}`, a?.group_label, b?.group_label);
      continue;
    }
    diff(`${id} › table ${g + 1} caption`, a.group_label, b.group_label);
    diff(
      `${id} › ${label} › rows`,
      a.factors.map((f) => f.factor_label),
      b.factors.map((f) => f.factor_label),
    );
    for (const theirsF of b.factors) {
      const oursF = a.factors.find((f) => f.factor_label === theirsF.factor_label);
      if (oursF) compareFactor(`${id} › ${label} › ${theirsF.factor_label}`, oursF, theirsF, ours.grades, diff);
    }
  }
  return out;
}

function compareFactor(
  where: string,
  a: Factor,
  b: Factor,
  grades: string[],
  diff: (w: string, a: unknown, b: unknown) => void,
) {
  diff(`${where} › unit`, a.unit, b.unit);
  diff(`${where} › unit_alt`, a.unit_alt, b.unit_alt);
  diff(`${where} › threshold_direction`, a.threshold_direction, b.threshold_direction);
  diff(`${where} › footnote_ref`, a.footnote_ref, b.footnote_ref);
  diff(`${where} › fallthrough`, a.fallthrough, b.fallthrough);
  for (const grade of grades) diff(`${where} › ${grade}`, cell(a.thresholds[grade]), cell(b.thresholds[grade]));
}
