// Pure: what `npm run changelog` writes. From the classes whose published record differs from what
// the changelog covers, one entry per crop year of those records (an entry's crop_year is its
// records'), each with the changed values as data; and what the changelog then covers.
import { Document, isMap, isSeq } from 'yaml';
import { changelogOrder } from '../compile/compile.ts';
import { publishedJson } from '../compile/published.ts';
import type { Coverage } from '../load/covered.ts';
import { slug } from '../slug.ts';
import type { Change, SourceEntry } from '../types.ts';
import type { Dataset } from '../validate/validate.ts';
import { entryDigest } from './coverage.ts';
import type { Unlogged } from './guard.ts';
import { correctsTable } from './printed.ts';

export interface DraftOptions {
  /** The editor's sentence; may be left out where every change is a re-check (recheckSentence). */
  summary?: string;
  /** YYYY-MM-DD */
  effectiveDate: string;
  now: Date;
  /** The editor said the entry corrects a finished crop year's table (`--correction`): marked where it does. */
  correction?: boolean;
}

const seconds = (d: Date) => `${d.toISOString().slice(0, 19)}Z`;

export function draftEntries(
  dataset: Dataset,
  coverage: Coverage,
  unlogged: Unlogged[],
  opts: DraftOptions,
): { entries: SourceEntry[]; coverage: Coverage } {
  const after = new Map(dataset.grains.map((g) => [g.grain_id, g]));
  const order = [...after.keys()];
  const yearOfClass = (id: string) =>
    after.get(id)?.effective_crop_year ??
    ((coverage.records.get(id)?.record as { effective_crop_year?: string } | null)?.effective_crop_year || 'unknown');
  const byYear = new Map<string, Unlogged[]>();
  for (const u of unlogged) byYear.set(yearOfClass(u.grain_id), [...(byYear.get(yearOfClass(u.grain_id)) ?? []), u]);

  const taken = new Set(dataset.changelog.map((e) => e.id));
  const fresh = (base: string) => {
    let id = base;
    for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
    taken.add(id);
    return id;
  };
  const entries: SourceEntry[] = [];
  const records = new Map(coverage.records);
  const past: Coverage['past'] = new Map([...coverage.past].map(([id, years]) => [id, new Map(years)]));
  for (const year of [...byYear.keys()].sort().reverse()) {
    const named = byYear.get(year)!.sort((a, b) => rank(order, a.grain_id) - rank(order, b.grain_id));
    const summary = [opts.summary, recheckSentence(named.filter(isRecheck), year)].filter(Boolean).join(' ');
    const suffix = byYear.size > 1 ? `-${year.replace('/', '-')}` : '';
    const id = fresh(`${opts.effectiveDate}-${slug(summary, { separator: '-', words: 6 }) || 'update'}${suffix}`);
    const changes = named.flatMap((u) => u.changes) as Change[];
    const corrects =
      opts.correction === true && correctsTable({ crop_year: year, effective_date: opts.effectiveDate, changes });
    entries.push({
      id,
      crop_year: year,
      effective_date: opts.effectiveDate,
      grain_ids_affected: named.map((u) => u.grain_id),
      summary,
      created_at: seconds(opts.now),
      ...(corrects ? { correction: true as const } : {}),
      changes,
    });
    for (const u of named) {
      const g = after.get(u.grain_id);
      // The record leaves its crop year: its last record of that year is kept (docs/contract.md, Crop years).
      const before = coverage.records.get(u.grain_id)?.record;
      const left = before?.effective_crop_year;
      if (g && before && typeof left === 'string' && left !== g.effective_crop_year) {
        past.set(u.grain_id, new Map([...(past.get(u.grain_id) ?? []), [left, before]]));
      }
      records.set(u.grain_id, { covered_by: id, record: g ? publishedJson(g) : null });
    }
  }
  return {
    entries,
    coverage: {
      entries: [...coverage.entries, ...entries.map((e) => ({ id: e.id, sha256: entryDigest(e) }))],
      records,
      past,
    },
  };
}

/** The fields a re-check of an unchanged page changes: when it was verified, and so its crop year(s). */
const RECHECK_FIELDS = new Set(['last_scraped', 'effective_crop_year', 'crop_years']);
export const isRecheck = (u: Unlogged) =>
  u.changes.every((c) => c.factor_id === null && RECHECK_FIELDS.has(c.field ?? ''));

/** What an entry says of the classes whose page was re-checked and found unchanged. */
function recheckSentence(rechecked: Unlogged[], year: string): string {
  if (!rechecked.length) return '';
  const ids = rechecked.map((u) => u.grain_id);
  const which = ids.length === 1 ? `The ${ids[0]} table` : `The tables of ${ids.join(', ')}`;
  return (
    `${which} ${ids.length === 1 ? 'was' : 'were'} re-checked against the authority's page and ` +
    `${ids.length === 1 ? 'holds' : 'hold'} unchanged for the ${year} crop year.`
  );
}

const rank = (order: string[], id: string) => (order.includes(id) ? order.indexOf(id) : order.length);

/**
 * What the changelog covers on a dataset that never recorded it: each class as it is now, covered
 * by the newest entry naming it. Used once, when a dataset adopts the guard, and by test fixtures.
 */
export function baselineCoverage(dataset: Dataset): { coverage?: Coverage; uncovered: string[] } {
  const newest = [...dataset.changelog].sort(changelogOrder);
  const records: Coverage['records'] = new Map();
  const uncovered: string[] = [];
  for (const g of dataset.grains) {
    const entry = newest.find((e) => e.grain_ids_affected.includes(g.grain_id));
    if (entry) records.set(g.grain_id, { covered_by: entry.id, record: publishedJson(g) });
    else uncovered.push(g.grain_id);
  }
  if (uncovered.length) return { uncovered };
  const entries = dataset.changelog.map((e) => ({ id: e.id, sha256: entryDigest(e) }));
  return { coverage: { entries, records, past: new Map() }, uncovered };
}

/** The entries as YAML items of changelog.yaml's `entries:` list, in the file's own style. */
export function entriesYaml(entries: SourceEntry[]): string {
  const doc = new Document(entries);
  for (const item of isSeq(doc.contents) ? doc.contents.items : []) {
    if (!isMap(item)) continue;
    const ids = item.get('grain_ids_affected', true);
    if (isSeq(ids)) ids.flow = true;
    const changes = item.get('changes', true);
    for (const c of isSeq(changes) ? changes.items : []) {
      // One line per change, unless a whole factor or record was added or removed.
      if (isMap(c) && c.items.every((p) => !isMap(p.value) && !isSeq(p.value))) c.flow = true;
    }
  }
  const text = doc.toString({ lineWidth: 110, flowCollectionPadding: false });
  return text.replace(/^(?=.)/gm, '  ');
}
