// GET /tables/{grain_id}: one class's table laid out as the authority's page lays it out (docs/contract.md,
// The front door): a row per factor, a column per grade, then the fall-through column; factor groups
// as row groups; footnotes, floor rules and notes under the table. The cells a change named are
// marked (data-changed) with the old value struck through beside the word "was", and listed above
// the table with links to them, so colour is never the only signal.
import { grainKey, grainYearKey, ROUTES } from '../site-format.ts';
import type { Change, CompiledRecord, Factor, Threshold } from '../types.ts';
import { type Html, html } from './html.ts';
import { page } from './layout.ts';
import { cellAnchor, cellKey, cellText, changesByCell, factorHeader, oldCell } from './table-cells.ts';

/** What a page's marked cells differ from: said above the list (the changelog entry, or the editor's baseline). */
export interface TableMarks {
  intro: Html;
  changes: Change[];
  /** A newer change to the API's fields alone, said apart from the printed numbers (class-changes.ts). */
  fields?: Html | null;
}

export interface TablePageOptions {
  /** The crop years the class was published for, oldest first. */
  years: string[];
  marks: TableMarks | null;
  /** A table page's link (the preview links its own files). */
  href: (grainId: string, year?: string) => string;
  /** What the index is called in links: the site's route, or the preview's file. */
  indexHref: string;
  /** The changes feed, advertised and linked (the site's; the preview has none). */
  feedHref?: string;
}

const fnId = (key: string) => `fn-${key.replace(/[^A-Za-z0-9_-]/g, '_')}`;
const cellId = (f: Factor, column: number | 'ft') => cellAnchor(f.factor_id, column);
const day = (timestamp: string) => timestamp.slice(0, 10);

type Marked = ReturnType<typeof changesByCell>;

/** A cell's value: a grade's threshold, or (grade null) the factor's fall-through; and before the changes. */
const now = (f: Factor | undefined, grade: string | null) =>
  grade === null ? html`${f?.fallthrough ?? 'none'}` : cellText(f?.thresholds[grade] as Threshold | undefined);
const was = (f: Factor | undefined, grade: string | null, changes: Change[]) =>
  grade === null
    ? html`${(changes[0]!.from as string | null) ?? 'none'}`
    : cellText(oldCell(f?.thresholds[grade] as Threshold | undefined, changes));

/** A factor's row: a cell per grade, then the fall-through; a cell a change named holds its old value too. */
function factorRow(r: CompiledRecord, f: Factor, marked: Marked): Html {
  const ref = f.footnote_ref;
  const sup =
    ref &&
    html`<sup><a href="#${fnId(ref)}" id="ref-${f.factor_id}"><span class="visually-hidden">footnote </span>${ref}</a\
></sup>`;
  const cells = [...r.grades, null].map((grade, i) => {
    const id = cellId(f, grade === null ? 'ft' : i);
    const value = grade === null ? html`${f.fallthrough ?? ''}` : now(f, grade);
    const changes = marked.cells.get(cellKey(f.factor_id, grade));
    if (!changes) return html`<td id="${id}">${value}</td>`;
    const old = html`<span class="was">was <del>${was(f, grade, changes)}</del></span>`;
    return html`<td id="${id}" data-changed>${value} ${old}</td>`;
  });
  return html`<tr><th scope="row">${factorHeader(f)}${sup}</th>${cells}</tr>\n`;
}

/** The table itself: its caption, a column per grade and the fall-through, a row group per factor group. */
function gradingTable(r: CompiledRecord, marked: Marked): Html {
  const year = r.effective_crop_year;
  const columns = r.grades.length + 2;
  const groups = r.factor_groups.map(
    (g) => html`<tbody>
<tr class="group"><th scope="rowgroup" colspan="${columns}"><span>${g.group_label}</span></th></tr>
${g.factors.map((f) => factorRow(r, f, marked))}</tbody>\n`,
  );
  const head = [
    html`<th scope="col">Grading factor</th>`,
    ...[...r.grades, r.fallthrough_label].map((g) => html`<th scope="col">${g}</th>`),
  ];
  return html`<div class="scroll table-box" tabindex="0" role="region" aria-labelledby="table-caption">
<table class="grading">
<caption id="table-caption"><span>${r.grain_id}: limits per grade, crop year ${year}</span></caption>
<thead><tr>${head}</tr></thead>
${groups}</table></div>`;
}

/** "What changed": each marked cell linked, was and now, then the other fields a change named. */
function changesSection(r: CompiledRecord, marks: TableMarks, marked: Marked, feedHref?: string): Html {
  const factors = r.factor_groups.flatMap((g) => g.factors);
  const listed = [...marked.cells.values()].map((changes) => {
    const { factor_id, grade } = changes[0]!;
    const f = factors.find((x) => x.factor_id === factor_id);
    const column = grade === null ? 'ft' : r.grades.indexOf(grade);
    const label = `${f?.factor_label ?? factor_id}, ${grade ?? r.fallthrough_label}`;
    const name = f && column !== -1 ? html`<a href="#${cellId(f, column)}">${label}</a>` : label;
    return html`<li>${name}: was <del>${was(f, grade, changes)}</del>, now ${now(f, grade)}</li>\n`;
  });
  const others = [...new Set(marked.other.map((c) => c.field ?? c.factor_id ?? 'the record'))];
  return html`<section class="changes" aria-labelledby="changes-title">
<h2 id="changes-title">What changed</h2>
<p>${marks.intro}</p>
${
  (listed.length > 0 || others.length > 0) &&
  html`<ul>
${listed}${others.length > 0 && html`<li>Also changed: ${others.join(', ')}.</li>\n`}</ul>\n`
}${marks.fields && html`<p>${marks.fields}</p>\n`}${
  feedHref && html`<p><a href="${feedHref}">Follow the changes</a> in a feed reader (Atom, no key).</p>\n`
}</section>\n`;
}

/** Under the table: what the last column means, the floor rules, the notes and the grade ladders. */
function underTable(r: CompiledRecord): Html {
  // a floor rule's note is often also among the record's notes: said once
  const notes = r.notes.filter((n) => !r.grade_floor_rules.some((g) => g.note === n));
  const tracks = r.variety_tracks?.map((t) => html`<li>${t.track_id}: ${t.grades.join(', ')}</li>\n`);
  const floors = r.grade_floor_rules.map((g) => html`<li>${g.note}</li>`);
  const under = html`${floors.length > 0 && html`<ul>${floors}</ul>\n`}${
    notes.length > 0 && html`<ul>${notes.map((n) => html`<li>${n}</li>`)}</ul>\n`
  }${tracks && html`<p>Grade ladders in this table:</p>\n<ul>${tracks}</ul>\n`}`;
  return html`<section aria-labelledby="under-title">
<h2 id="under-title">Under the table</h2>
<p>The last column, “${r.fallthrough_label}”, names the grade a sample gets when a factor misses the limits of
every grade.</p>
${under}</section>`;
}

/** The footnotes, each linking back to the factors that cite it; nothing when there are none. */
function footnotesSection(r: CompiledRecord): Html | false {
  const factors = r.factor_groups.flatMap((g) => g.factors);
  const citing = (key: string) => factors.filter((f) => f.footnote_ref === key);
  const footnotes = Object.entries(r.footnotes).map(
    ([key, text]) =>
      html`<li id="${fnId(key)}"><span class="fn-key">${key}</span> ${text}${citing(key).map(
        (f) => html` <a href="#ref-${f.factor_id}">Back to ${f.factor_label}</a>`,
      )}</li>\n`,
  );
  return (
    footnotes.length > 0 &&
    html`<section aria-labelledby="footnotes-title">
<h2 id="footnotes-title">Footnotes</h2>
<ol class="footnotes">
${footnotes}</ol>
</section>`
  );
}

/** The facts above the table: when it was checked, its kind, its crop years and where it is as data. */
function factsList(r: CompiledRecord, opts: TablePageOptions): Html {
  const year = r.effective_crop_year;
  const current = year === opts.years.at(-1);
  const apiPath = current ? grainKey(r.grain_id) : grainYearKey(r.grain_id, year);
  const yearLinks = opts.years.map((y) =>
    y === year
      ? html`<strong aria-current="page">${y}</strong>`
      : html`<a href="${opts.href(r.grain_id, y === opts.years.at(-1) ? undefined : y)}">${y}</a>`,
  );
  const checked = day(r.last_scraped);
  const kind = html`Kind: ${r.kind}${r.region && `; region: ${r.region}`}${
    r.coverage_status === 'partial' && '; only some of its tables are loaded'
  }.`;
  const yearList = opts.years.length > 1 && yearLinks.flatMap((l, i) => (i ? [html` · `, l] : [l]));
  return html`<ul class="facts">
<li>Last checked against <a href="${r.source_url}">the Commission's page</a> on
<time datetime="${checked}">${checked}</time>.</li>
<li>${kind}</li>
${yearList && html`<li>Crop years: ${yearList}</li>\n`}<li>As data: <a href="${apiPath}"><code>GET ${apiPath}</code></a>
(with an API key). <a href="${ROUTES.gradePage.path}">Grade a sample</a> against it.</li>
</ul>`;
}

export function renderTablePage(r: CompiledRecord, opts: TablePageOptions): string {
  const year = r.effective_crop_year;
  const current = year === opts.years.at(-1);
  const marked = changesByCell(opts.marks?.changes ?? []);
  const changes = opts.marks && changesSection(r, opts.marks, marked, opts.feedHref);
  const body = html`<p class="crumbs"><a href="${opts.indexHref}">All grading tables</a></p>
<h1>${r.grain_name}</h1>
<p class="lead">The primary grade determination table of <code>${r.grain_id}</code> for crop year ${year}${
    current ? '' : ', as it stood at the end of that crop year'
  }, as the Canadian Grain Commission prints it.</p>
${factsList(r, opts)}
${changes}${gradingTable(r, marked)}
${underTable(r)}
${footnotesSection(r)}`;
  return page({
    title: `${r.grain_name} (${r.grain_id}), crop year ${year}: grading table`,
    description: `The Canadian Grain Commission's grade determination table of ${r.grain_name}, crop year ${year}.`,
    body,
    wide: true,
    feed: opts.feedHref,
  });
}
