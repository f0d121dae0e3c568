// Turns one section of an authority page into a grain file (YAML) for an editor to review.
// What the page states is written as printed; what needs judgement (ids, aggregates, fall-through
// conditions, variety tracks) is proposed, and on an update the editor's earlier choices are kept.

import { slug } from '../slug.ts';
import type { Direction, SourceFactor, SourceGrain } from '../types.ts';
import { cellFromAuthority } from '../validate/cells.ts';
import { normalise, PageError, type PageRow, type PageSection, type PageTable } from './parse-page.ts';
import { proposeAggregates, proposeColours, proposeConditions, proposeFloorRules, proposeTracks } from './propose.ts';

export type { SourceFactor, SourceGrain } from '../types.ts';

type SourceGroup = SourceGrain['factor_groups'][number];

/**
 * What the importer is told about a class. A new class's draft may hold "REVIEW: …" placeholders
 * in kind, region and use_class, which the build refuses until an editor fills them in.
 */
export type GrainMeta = Pick<
  SourceGrain,
  'grain_id' | 'grain_name' | 'effective_crop_year' | 'source_url' | 'last_scraped'
> &
  Partial<Pick<SourceGrain, 'coverage_status' | 'size_modifier'>> & {
    kind: string;
    region?: string | null;
    use_class?: string | null;
  };

const ALT_UNIT = /\b(kg\/h[lL])\s*\((g\/0\.5\s*[lL])\)/;

/** Row header → label, unit and direction, e.g. "Minimum test weight kg/hL (g/0.5 L)". */
export function readHeader(header: string): { label: string; unit: string; unit_alt?: string; direction: Direction } {
  let label = header;
  let unit = '';
  let unit_alt: string | undefined;
  const alt = ALT_UNIT.exec(label);
  if (alt) {
    // one spelling of the unit symbols on every page (the litre is L): some pages print kg/hl
    unit = 'kg/hL';
    unit_alt = normalise(alt[2]!).replace(/l$/, 'L');
    label = label.replace(alt[0], ' ');
  } else if (/(^|\s)%(\s|$)/.test(label)) {
    unit = '%';
    label = label.replace(/(^|\s)%(\s|$)/, ' ');
  }
  label = normalise(label).replace(/\s+,/g, ',');
  const direction: Direction = !unit ? 'qualitative' : /^Minimum\b/i.test(label) ? 'minimum' : 'maximum';
  return { label, unit, unit_alt, direction };
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** The grade columns every table of the section shares: a section whose tables differ is refused. */
export function sharedGrades(section: PageSection): string[] {
  const first = section.tables[0]!;
  for (const t of section.tables) {
    if (t.grades.join('|') !== first.grades.join('|')) {
      throw new PageError(`the tables of "${section.name}" do not share one set of grade columns`);
    }
  }
  return first.grades;
}

/**
 * A row's cells as the grain file writes them (as printed). A partial limit the editor named is kept
 * where the page still prints the cell the same way.
 */
function draftCells(
  row: PageRow,
  where: string,
  direction: Direction,
  prev?: SourceFactor,
): SourceFactor['thresholds'] {
  return row.cells.map((cell, k) => {
    const c = cellFromAuthority(cell, direction);
    if (typeof c === 'object' && 'error' in c) throw new PageError(`${where}: ${c.error}`);
    const was = prev?.thresholds[k] as { note?: string; partial_of?: string[]; partial_key?: string } | undefined;
    if (typeof c === 'object' && !c.partial_of && was?.partial_of && was.note === c.note) {
      return { ...c, partial_of: was.partial_of, partial_key: was.partial_key! };
    }
    return c;
  });
}

/**
 * One row as the grain file's factor: what the page prints, with the editor's earlier choices
 * (`prev`, the factor of the same label) kept. `aggregates` proposes the rows a Total sums.
 */
export function draftRow(
  row: PageRow,
  ctx: {
    id: string;
    group: string;
    footnotes: Record<string, string>;
    prev?: SourceFactor;
    aggregates: () => string[];
  },
): SourceFactor {
  const h = readHeader(row.header);
  const prev = ctx.prev;
  // Keys in reading order; thresholds are assigned below, after the unit and direction.
  const f = { factor_id: prev?.factor_id ?? ctx.id, factor_label: h.label } as SourceFactor;
  if (h.direction === 'qualitative') f.threshold_direction = 'qualitative';
  else {
    if (h.unit !== '%') f.unit = h.unit;
    if (h.unit_alt) f.unit_alt = h.unit_alt;
    if (h.direction === 'minimum') f.threshold_direction = 'minimum';
  }
  if (row.isTotal && h.direction !== 'qualitative') {
    const proposed = ctx.aggregates();
    f.aggregates = prev ? (prev.aggregates ?? []) : proposed;
    // which parts the label names without a row: the editor's judgement, kept on an update
    f.unlisted_parts = prev?.unlisted_parts ?? [];
    f.parts_stated = prev?.parts_stated ?? 'not_stated';
  }
  const ref = row.footnoteRefs.find((r) => r in ctx.footnotes);
  if (ref) f.footnote_ref = ref;
  f.thresholds = draftCells(row, `${ctx.group}, ${h.label}`, h.direction, prev);
  if (row.fallthrough) {
    f.fallthrough = row.fallthrough;
    const conditions =
      prev && prev.fallthrough === row.fallthrough ? prev.fallthrough_conditions : proposeConditions(row.fallthrough);
    if (conditions) f.fallthrough_conditions = conditions;
  }
  if (prev?.monotonic_waiver) f.monotonic_waiver = prev.monotonic_waiver;
  return f;
}

/** One table as a factor group; the editor's group of the same label keeps its id and its rows' choices. */
function draftGroup(table: PageTable, footnotes: Record<string, string>, existing?: SourceGrain): SourceGroup {
  const heads = table.rows.map((r) => readHeader(r.header));
  const ids = heads.map((h) => slug(h.label));
  const numeric = heads.map((h) => h.direction !== 'qualitative');
  const used = new Set<number>();
  const label = capitalise(table.group);
  const old = existing?.factor_groups.find((g) => g.group_label === label);
  const factors = table.rows.map((row, i) =>
    draftRow(row, {
      id: ids[i]!,
      group: table.group,
      footnotes,
      prev: old?.factors.find((f) => f.factor_label === heads[i]!.label),
      aggregates: () => proposeAggregates(table.rows, i, ids, numeric, used, table.group),
    }),
  );
  return { group_id: old?.group_id ?? slug(table.group), group_label: label, factors };
}

export function draftGrain(section: PageSection, meta: GrainMeta, existing?: SourceGrain): SourceGrain {
  const grades = sharedGrades(section);
  const footnotes: Record<string, string> = {};
  for (const t of section.tables) Object.assign(footnotes, t.footnotes);
  const groups = section.tables.map((table) => draftGroup(table, footnotes, existing));
  const rules = proposeFloorRules(
    section,
    footnotes,
    groups.flatMap((gr) => gr.factors),
    existing,
  );
  const g: SourceGrain = {
    grain_id: meta.grain_id,
    grain_name: meta.grain_name,
    kind: meta.kind as SourceGrain['kind'], // a placeholder stays for the build to refuse
    ...(meta.region !== undefined ? { region: meta.region as SourceGrain['region'] } : {}),
    ...(meta.use_class !== undefined ? { use_class: meta.use_class as SourceGrain['use_class'] } : {}),
    effective_crop_year: meta.effective_crop_year,
    ...(meta.coverage_status !== undefined ? { coverage_status: meta.coverage_status } : {}),
    source_url: meta.source_url,
    source_section: section.name,
    last_scraped: meta.last_scraped,
    grades,
    ...proposeTracks(grades, existing),
    ...(section.notes.some((n) => /colour is added to the grade name/i.test(n)) ? { colour_modifier: true } : {}),
    ...proposeColours(section.name, existing),
    ...(meta.size_modifier ? { size_modifier: true } : {}),
    fallthrough_label: section.tables[0]!.fallthroughLabel ?? '',
    ...(section.notes.length ? { notes: section.notes } : {}),
    ...(existing?.footnote_rules ? { footnote_rules: existing.footnote_rules } : {}),
    ...(rules.length ? { grade_floor_rules: rules } : {}),
    ...(Object.keys(footnotes).length ? { footnotes } : {}),
    factor_groups: groups,
  };
  if (!g.fallthrough_label) throw new PageError(`"${section.name}" has no fall-through column`);
  return g;
}
