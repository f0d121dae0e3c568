// Pure: a validated dataset → the tables' pages (docs/contract.md, The front door): the index, and
// each class's table for every crop year it was published for, marked with what the newest
// changelog entry of that year changed in it. The gateway serves them as they are.

import { ROUTES, tableKey } from '../site-format.ts';
import type { GrainRecord, SourceEntry } from '../types.ts';
import { yearsOf } from '../validate/crop-years.ts';
import type { Dataset } from '../validate/validate.ts';
import { html } from './html.ts';
import { renderTablePage, type TableMarks } from './table-page.ts';
import { renderTablesIndex } from './tables-index.ts';

/**
 * The marks of a class's page of `year`: the changes of the entry made last (created_at) of those of
 * that year naming the class with their changes listed (entries older than `changes` list none).
 */
function entryMarks(entries: SourceEntry[], grainId: string, year: string): TableMarks | null {
  const named = entries.filter((e) => e.crop_year === year && e.changes && e.grain_ids_affected.includes(grainId));
  const entry = named.sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0))[0];
  if (!entry?.changes) return null;
  const link = `${ROUTES.changelog.path}?grain_id=${grainId}`;
  return {
    intro: html`Changed on <time datetime="${entry.effective_date}">${entry.effective_date}</time>: ${entry.summary}
(changelog entry <a href="${link}"><code>${entry.id}</code></a>, read with an API key).`,
    changes: entry.changes.filter((c) => c.grain_id === grainId),
  };
}

export function tableBodies(ds: Dataset): Map<string, string> {
  const bodies = new Map([[ROUTES.tables.path, renderTablesIndex(ds.grains, (id) => tableKey(id))]]);
  for (const g of ds.grains) {
    const years = yearsOf(g.grain_id, g.effective_crop_year, ds.past);
    for (const year of years) {
      const record =
        year === g.effective_crop_year ? g : (ds.past?.get(g.grain_id)?.get(year) as unknown as GrainRecord);
      const marks = entryMarks(ds.changelog, g.grain_id, year);
      const text = renderTablePage(record, { years, marks, href: tableKey, indexHref: ROUTES.tables.path });
      bodies.set(tableKey(g.grain_id, year), text);
      if (year === g.effective_crop_year) bodies.set(tableKey(g.grain_id), text);
    }
  }
  return bodies;
}
