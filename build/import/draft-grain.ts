// Turns one section of an authority page into a grain file (YAML) for an editor to review.
// What the page states is written as printed; what needs judgement (ids, aggregates, fall-through
// conditions, variety tracks) is proposed, and on an update the editor's earlier choices are kept.

import type { Direction, SourceFactor, SourceGrain } from '../types.ts';
import { cellFromAuthority } from '../validate/cells.ts';
import { normalise, PageError, type PageRow, type PageSection } from './parse-page.ts';

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

const COLOURS = ['Yellow', 'White', 'Green', 'Brown', 'Black', 'Red', 'Mixed'];
/**
 * The colour words of a class name, in its order: "Corn, Canada Western Yellow, White or Mixed"
 * → Yellow, White, Mixed.
 */
const colourWords = (name: string) => name.split(/[\s,()]+/).filter((w) => COLOURS.includes(w));

const slug = (s: string) =>
  s
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');

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

const words = (s: string) =>
  s
    .toLowerCase()
    .replace(/^total\s+/, '')
    .replace(/[^a-z ]+/g, ' ')
    .split(/\s+/)
    .filter(Boolean);
const phrase = (s: string) => ` ${words(s).join(' ')} `;

/**
 * Proposes the rows a total sums, for an editor to review. A table captioned "… included in total
 * X" is summed whole by its "Total X". Otherwise the candidates are the earlier rows not summed by
 * another total, within the block the page opens with a heavy rule if it draws one; of those, the
 * rows whose whole name the total's contains (or the reverse), else those sharing its last word,
 * else all of them.
 */
function proposeAggregates(
  rows: PageRow[],
  index: number,
  ids: string[],
  numeric: boolean[],
  used: Set<number>,
  group: string,
): string[] {
  const total = rows[index]!;
  const t = phrase(total.header);
  const included = /included in (total .+)$/i.exec(group);
  const blockStart = rows.slice(0, index + 1).findLastIndex((r) => r.opensBlock);
  const from = included || blockStart < 0 ? 0 : blockStart;
  const candidates: number[] = [];
  for (let i = from; i < index; i++) if (numeric[i] && !used.has(i)) candidates.push(i);
  let chosen = candidates;
  if (!(included && phrase(included[1]!) === t)) {
    // whole names first ("Shrunken" in "Shrunken and broken"), then a shared last word
    const byPhrase = candidates.filter((i) => {
      const c = phrase(rows[i]!.header);
      return t.includes(c) || c.includes(t);
    });
    const byWord = candidates.filter((i) => t.includes(` ${words(rows[i]!.header).at(-1) ?? ''} `));
    if (byPhrase.length) chosen = byPhrase;
    else if (byWord.length) chosen = byWord;
  }
  for (const i of chosen) used.add(i);
  return chosen.map((i) => ids[i]!);
}

/** Splits a fall-through outcome such as "2.5% or less - X Over 2.5% - Y" into conditions. */
export function proposeConditions(text: string): SourceFactor['fallthrough_conditions'] {
  const marker = /(\d+(?:\.\d+)?)% or less|Over (\d+(?:\.\d+)?)%/g;
  const marks = [...text.matchAll(marker)];
  if (!marks.length) return undefined;
  const clean = (s: string) => {
    let t = s.replace(/^[\s\-–—,.]+|[\s\-–—,.]+$/g, '');
    // "Over 10%, either alone or ... of CWSP - Wheat, Sample ...": the grade follows the last " - ".
    if (/^[,]/.test(s.trim()) || /either alone/.test(t))
      t = t
        .split(/\s[-–—]\s/)
        .at(-1)!
        .trim();
    return t;
  };
  const out: NonNullable<SourceFactor['fallthrough_conditions']> = [];
  const first = marks[0]!;
  const before = clean(text.slice(0, first.index));
  if (before) {
    out.push({ condition: first[1] ? `> ${first[1]}%` : `<= ${first[2]}%`, region: null, grade: before });
  }
  marks.forEach((m, k) => {
    const condition = m[1] ? `<= ${m[1]}%` : `> ${m[2]}%`;
    const segment = text.slice(m.index! + m[0].length, marks[k + 1]?.index ?? text.length);
    const regional = /West\s*[-–—]\s*(.+?),?\s+or\s+East\s*[-–—]\s*(.+)$/.exec(segment);
    if (regional) {
      out.push({ condition, region: 'western', grade: clean(regional[1]!) });
      out.push({ condition, region: 'eastern', grade: clean(regional[2]!) });
    } else {
      out.push({ condition, region: null, grade: clean(segment) });
    }
  });
  return out;
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export function draftGrain(section: PageSection, meta: GrainMeta, existing?: SourceGrain): SourceGrain {
  const first = section.tables[0]!;
  for (const t of section.tables) {
    if (t.grades.join('|') !== first.grades.join('|')) {
      throw new PageError(`the tables of "${section.name}" do not share one set of grade columns`);
    }
  }
  const grades = first.grades;
  const hulless = grades.filter((g) => /\bHulless\b/i.test(g));
  const footnotes: Record<string, string> = {};
  for (const t of section.tables) Object.assign(footnotes, t.footnotes);

  const ruleNotes = section.notes.flatMap((note) => {
    const m = /graded no lower than (.+?) on account of ([A-Za-z ]+?)\.?$/.exec(note);
    return m ? [{ account: slug(m[2]!), floor_grade: m[1]!, note }] : [];
  });

  const groups: SourceGroup[] = section.tables.map((table) => {
    const heads = table.rows.map((r) => readHeader(r.header));
    const ids = heads.map((h) => slug(h.label));
    const numeric = heads.map((h) => h.direction !== 'qualitative');
    const used = new Set<number>();
    const label = capitalise(table.group);
    const old = existing?.factor_groups.find((g) => g.group_label === label);
    const factors = table.rows.map((row, i): SourceFactor => {
      const h = heads[i]!;
      const prev = old?.factors.find((f) => f.factor_label === h.label);
      // Keys in reading order; thresholds are assigned below, after the unit and direction.
      const f = { factor_id: prev?.factor_id ?? ids[i]!, factor_label: h.label } as SourceFactor;
      if (h.direction === 'qualitative') f.threshold_direction = 'qualitative';
      else {
        if (h.unit !== '%') f.unit = h.unit;
        if (h.unit_alt) f.unit_alt = h.unit_alt;
        if (h.direction === 'minimum') f.threshold_direction = 'minimum';
      }
      if (row.isTotal && h.direction !== 'qualitative') {
        const proposed = proposeAggregates(table.rows, i, ids, numeric, used, table.group);
        f.aggregates = prev ? (prev.aggregates ?? []) : proposed;
        // which parts the label names without a row: the editor's judgement, kept on an update
        f.unlisted_parts = prev?.unlisted_parts ?? [];
        f.parts_stated = prev?.parts_stated ?? 'not_stated';
      }
      const ref = row.footnoteRefs.find((r) => r in footnotes);
      if (ref) f.footnote_ref = ref;
      f.thresholds = row.cells.map((cell, k) => {
        const c = cellFromAuthority(cell, h.direction);
        if (typeof c === 'object' && 'error' in c) throw new PageError(`${table.group}, ${h.label}: ${c.error}`);
        // a partial limit the editor named on a cell the page still prints the same way is kept
        const was = prev?.thresholds[k] as { note?: string; partial_of?: string[]; partial_key?: string } | undefined;
        if (typeof c === 'object' && !c.partial_of && was?.partial_of && was.note === c.note) {
          return { ...c, partial_of: was.partial_of, partial_key: was.partial_key! };
        }
        return c;
      });
      if (row.fallthrough) {
        f.fallthrough = row.fallthrough;
        const conditions =
          prev && prev.fallthrough === row.fallthrough
            ? prev.fallthrough_conditions
            : proposeConditions(row.fallthrough);
        if (conditions) f.fallthrough_conditions = conditions;
      }
      if (prev?.monotonic_waiver) f.monotonic_waiver = prev.monotonic_waiver;
      return f;
    });
    return { group_id: old?.group_id ?? slug(table.group), group_label: label, factors };
  });

  // A floor rule governs the factors whose footnote points to its account's standard ("See Mildew
  // (MIL) for applicable standard"); an editor's earlier choice is kept.
  const rules = ruleNotes.map((r) => {
    const kept = existing?.grade_floor_rules?.find((e) => e.account === r.account)?.factor_ids;
    const cited = Object.entries(footnotes)
      .filter(([, text]) => text.toLowerCase().includes(r.account.replace(/_/g, ' ')))
      .map(([key]) => key);
    const proposed = groups.flatMap((gr) => gr.factors).filter((f) => f.footnote_ref && cited.includes(f.footnote_ref));
    return { ...r, factor_ids: kept ?? proposed.map((f) => f.factor_id) }; // [] when the page does not say
  });

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
    ...(existing?.variety_tracks !== undefined
      ? { variety_tracks: existing.variety_tracks }
      : hulless.length && hulless.length < grades.length
        ? {
            variety_tracks: [
              { track_id: 'covered', grades: grades.filter((x) => !hulless.includes(x)) },
              { track_id: 'hulless', grades: hulless },
            ],
          }
        : {}),
    ...(section.notes.some((n) => /colour is added to the grade name/i.test(n)) ? { colour_modifier: true } : {}),
    // the colours are the editor's reading of the class name ("Yellow, White or Mixed"): proposed from
    // the colour words it holds, kept on an update
    ...(existing?.colours
      ? { colours: existing.colours }
      : colourWords(section.name).length >= 2
        ? { colours: colourWords(section.name) }
        : {}),
    ...(meta.size_modifier ? { size_modifier: true } : {}),
    fallthrough_label: first.fallthroughLabel ?? '',
    ...(section.notes.length ? { notes: section.notes } : {}),
    ...(existing?.footnote_rules ? { footnote_rules: existing.footnote_rules } : {}),
    ...(rules.length ? { grade_floor_rules: rules } : {}),
    ...(Object.keys(footnotes).length ? { footnotes } : {}),
    factor_groups: groups,
  };
  if (!g.fallthrough_label) throw new PageError(`"${section.name}" has no fall-through column`);
  return g;
}
