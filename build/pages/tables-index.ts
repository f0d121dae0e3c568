// GET /tables/: every class's table, in the list's order (docs/contract.md, The front door), the
// dates the tables were last checked against the Commission's pages, as a range where they differ,
// and when each class's printed numbers last changed (class-changes.ts), which a change to the
// API's fields alone does not move.
import { correctionTitle } from '../changelog/printed.ts';
import type { CompiledRecord, SourceEntry } from '../types.ts';
import { classChanges } from './class-changes.ts';
import { type Html, html } from './html.ts';
import { page } from './layout.ts';

/** The day a class's printed numbers last changed, or, when no entry records one, the day it was first published. */
function numbersChanged(changelog: readonly SourceEntry[], grainId: string): Html {
  const { numbers, published } = classChanges(changelog, grainId, null);
  const entry = numbers?.entry ?? published;
  if (!entry) return html`unknown`;
  const day = html`<time datetime="${entry.effective_date}">${entry.effective_date}</time>`;
  if (!numbers) return html`${day} <span class="note">(first published)</span>`;
  return entry.correction ? html`${day} <span class="note">(${correctionTitle(entry.crop_year)})</span>` : day;
}

/** The days the records were last checked, earliest and latest: "on D" or "between D1 and D2". */
export function checkedRange(grains: Pick<CompiledRecord, 'last_scraped'>[]): Html {
  const days = grains.map((g) => g.last_scraped.slice(0, 10)).sort();
  const [first, last] = [days[0] ?? '', days.at(-1) ?? ''];
  const time = (d: string) => html`<time datetime="${d}">${d}</time>`;
  return first === last ? html`on ${time(last)}` : html`between ${time(first)} and ${time(last)}`;
}

export function renderTablesIndex(
  grains: CompiledRecord[],
  href: (grainId: string) => string,
  opts: { changelog: readonly SourceEntry[]; feedHref?: string },
): string {
  const rows = grains.map((g) => {
    const checked = g.last_scraped.slice(0, 10);
    return html`<tr><th scope="row"><a href="${href(g.grain_id)}">${g.grain_name}</a></th>
<td><code>${g.grain_id}</code></td><td>${g.kind}</td><td>${g.region ?? 'national'}</td>
<td>${g.effective_crop_year}</td><td><time datetime="${checked}">${checked}</time></td>
<td>${numbersChanged(opts.changelog, g.grain_id)}</td></tr>\n`;
  });
  const body = html`<h1>Grading tables</h1>
<p class="lead">The Canadian Grain Commission's primary grade determination tables, one page per grain class, with
the numbers exactly as the Commission prints them. Each class's page says when it was last checked against the
Commission's page; these ${grains.length} were checked ${checkedRange(grains)}. “Numbers changed” is the day a
class's printed numbers last changed: a change to the API's fields alone leaves it.</p>
${
  opts.feedHref &&
  html`<p>To hear when a table changes, <a href="${opts.feedHref}">follow the changes</a> in a feed reader
(Atom, no key needed).</p>\n`
}
<div class="scroll" tabindex="0" role="region" aria-labelledby="classes-caption"><table>
<caption id="classes-caption">${grains.length} grain classes</caption>
<thead><tr><th scope="col">Class</th><th scope="col">grain_id</th><th scope="col">Kind</th><th scope="col">Region</th>
<th scope="col">Crop year</th><th scope="col">Last checked</th><th scope="col">Numbers changed</th></tr></thead>
<tbody>
${rows}</tbody>
</table></div>`;
  return page({
    title: 'Grading tables: every grain class',
    description: "The Canadian Grain Commission's primary grade determination tables, one page per grain class.",
    body,
    feed: opts.feedHref,
  });
}
