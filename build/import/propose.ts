// What needs an editor's judgement, proposed from what the page prints (docs/dataset-editing.md,
// Workflow): ids, the rows a Total sums, a fall-through's conditions, the variety tracks, the
// colours and the factors a grade floor governs. On an update the editor's earlier choice is kept
// by the caller (draft-grain.ts) or here, where the proposal and the kept choice meet.
import { slug } from '../slug.ts';
import type { SourceFactor, SourceGrain } from '../types.ts';
import type { PageRow, PageSection } from './parse-page.ts';

/** An id proposed from a label: "Sprouted, severely" → sprouted_severely. */

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
export function proposeAggregates(
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

const COLOURS = ['Yellow', 'White', 'Green', 'Brown', 'Black', 'Red', 'Mixed'];
/**
 * The colour words of a class name, in its order: "Corn, Canada Western Yellow, White or Mixed"
 * → Yellow, White, Mixed.
 */
const colourWords = (name: string) => name.split(/[\s,()]+/).filter((w) => COLOURS.includes(w));

/** Variety tracks, where some grades are Hulless and others not: the editor's tracks kept on an update. */
export function proposeTracks(grades: string[], existing?: SourceGrain): Pick<SourceGrain, 'variety_tracks'> {
  if (existing?.variety_tracks !== undefined) return { variety_tracks: existing.variety_tracks };
  const hulless = grades.filter((g) => /\bHulless\b/i.test(g));
  if (!hulless.length || hulless.length === grades.length) return {};
  return {
    variety_tracks: [
      { track_id: 'covered', grades: grades.filter((x) => !hulless.includes(x)) },
      { track_id: 'hulless', grades: hulless },
    ],
  };
}

/**
 * The colours are the editor's reading of the class name ("Yellow, White or Mixed"): proposed from
 * the colour words it holds, kept on an update.
 */
export function proposeColours(sectionName: string, existing?: SourceGrain): Pick<SourceGrain, 'colours'> {
  if (existing?.colours) return { colours: existing.colours };
  return colourWords(sectionName).length >= 2 ? { colours: colourWords(sectionName) } : {};
}

/**
 * The section's "graded no lower than X on account of Y" notes as floor rules. A rule governs the
 * factors whose footnote points to its account's standard ("See Mildew (MIL) for applicable
 * standard"); an editor's earlier choice is kept.
 */
export function proposeFloorRules(
  section: Pick<PageSection, 'notes'>,
  footnotes: Record<string, string>,
  factors: SourceFactor[],
  existing?: SourceGrain,
): NonNullable<SourceGrain['grade_floor_rules']> {
  return section.notes.flatMap((note) => {
    const m = /graded no lower than (.+?) on account of ([A-Za-z ]+?)\.?$/.exec(note);
    if (!m) return [];
    const account = slug(m[2]!);
    const kept = existing?.grade_floor_rules?.find((e) => e.account === account)?.factor_ids;
    const cited = Object.entries(footnotes)
      .filter(([, text]) => text.toLowerCase().includes(account.replace(/_/g, ' ')))
      .map(([key]) => key);
    const proposed = factors.filter((f) => f.footnote_ref && cited.includes(f.footnote_ref));
    // [] when the page does not say
    return [{ account, floor_grade: m[1]!, note, factor_ids: kept ?? proposed.map((f) => f.factor_id) }];
  });
}
