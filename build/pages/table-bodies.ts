// Pure: a validated dataset → the tables' pages (docs/contract.md, The front door): the index, and
// each class's table for every crop year it was published for, marked with the newest change of
// that year to its printed numbers and told apart from a newer change to the API's fields alone
// (class-changes.ts); and the changes feed they advertise. The gateway serves them as they are.

import { correctionTitle } from '../changelog/printed.ts';
import { ROUTES, tableKey } from '../site-format.ts';
import type { CompiledRecord, SourceEntry } from '../types.ts';
import { yearsOf } from '../validate/crop-years.ts';
import type { Dataset } from '../validate/validate.ts';
import { renderChangesFeed } from './changes-feed.ts';
import { classChanges } from './class-changes.ts';
import { html } from './html.ts';
import { renderTablePage, type TableMarks } from './table-page.ts';
import { renderTablesIndex } from './tables-index.ts';

const when = (e: SourceEntry) => html`<time datetime="${e.effective_date}">${e.effective_date}</time>`;

/**
 * The "What changed" box of a class's page of `year`: the newest entry of that year that changed a
 * printed number, its cells marked; and, apart, a newer entry that changed only the API's fields.
 * Null when no entry of the year lists a change to the class (entries older than `changes` list none).
 */
function marksOf(entries: SourceEntry[], grainId: string, year: string): TableMarks | null {
  const { numbers, fields, published } = classChanges(entries, grainId, year);
  if (!numbers && !fields) return null;
  const link = `${ROUTES.changelog.path}?grain_id=${grainId}`;
  const cite = (e: SourceEntry) =>
    html`(changelog entry <a href="${link}"><code>${e.id}</code></a>, read with an API key)`;
  const intro = numbers?.entry.correction
    ? html`<strong>${correctionTitle(numbers.entry.crop_year)}</strong>, published ${when(numbers.entry)}: \
${numbers.entry.summary} ${cite(numbers.entry)}.`
    : numbers
      ? html`<strong>Printed numbers</strong> last changed on ${when(numbers.entry)}: ${numbers.entry.summary}
${cite(numbers.entry)}.`
      : html`<strong>Printed numbers:</strong> no change in crop year ${year}${
          published && html`; the class was first published on ${when(published)}`
        }.`;
  const names = fields && [...new Set(fields.changes.map((c) => c.field ?? c.factor_id ?? 'the record'))];
  const fieldsLine =
    fields &&
    html`<strong>The API's fields</strong> changed${numbers ? ' later,' : ''} on ${when(fields.entry)}:
${names!.join(', ')}; no printed number changed with them. ${fields.entry.summary} ${cite(fields.entry)}.`;
  return { intro, changes: numbers?.changes ?? [], fields: fieldsLine };
}

export function tableBodies(ds: Dataset): Map<string, string> {
  const feedHref = ROUTES.feed.path;
  const index = renderTablesIndex(ds.grains, (id) => tableKey(id), { changelog: ds.changelog, feedHref });
  const bodies = new Map([
    [ROUTES.tables.path, index],
    [ROUTES.feed.path, renderChangesFeed(ds)],
  ]);
  for (const g of ds.grains) {
    const years = yearsOf(g.grain_id, g.effective_crop_year, ds.past);
    for (const year of years) {
      const record =
        year === g.effective_crop_year ? g : (ds.past?.get(g.grain_id)?.get(year) as unknown as CompiledRecord);
      const marks = marksOf(ds.changelog, g.grain_id, year);
      const text = renderTablePage(record, { years, marks, href: tableKey, indexHref: ROUTES.tables.path, feedHref });
      bodies.set(tableKey(g.grain_id, year), text);
      if (year === g.effective_crop_year) bodies.set(tableKey(g.grain_id), text);
    }
  }
  return bodies;
}
