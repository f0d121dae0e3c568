// Pure: the changelog as an Atom feed (RFC 4287) at GET /tables/changes.atom, for people who want
// to hear when a table changes without an API key (docs/contract.md, The front door). Built once
// with the pages and served as they are, the same for every origin: its links are relative, which
// a reader resolves against the feed's own address (RFC 4287 §7), and nothing in it reads the
// clock, so one dataset always gives the same bytes. Each entry says its summary, crop year,
// effective date and classes, and links each class's table page, at the changed cell where it can.
import { createHash } from 'node:crypto';
import { correctionTitle } from '../changelog/printed.ts';
import { changelogOrder } from '../compile/compile.ts';
import { BODY_TYPES, escapeHtml, ROUTES, tableKey } from '../site-format.ts';
import type { Change, CompiledRecord, SourceEntry } from '../types.ts';
import { yearsOf } from '../validate/crop-years.ts';
import type { Dataset } from '../validate/validate.ts';
import { namesCell } from './class-changes.ts';
import { html } from './html.ts';
import { cellAnchor } from './table-cells.ts';

/** The feed's type (RFC 4287 §7), which a page's <link rel="alternate"> names for feed readers. */
export const FEED_MEDIA_TYPE = BODY_TYPES.atom.slice(0, BODY_TYPES.atom.indexOf(';'));

/**
 * The namespace of the feed's ids, which are name-based UUIDs (RFC 9562 §5.5) of the changelog
 * entries' own ids: an id must never change, or every reader shows every entry again. Fixed for
 * ever; an atom:id must be an absolute IRI, and the service has no host name of its own to mint one.
 */
const ID_NAMESPACE = Buffer.from('6f1c2a4e8b3d4f7a9c0e5b2d7a1f3c8e', 'hex');

/** A name-based UUID (version 5, SHA-1) of `name` in the feed's namespace, as a urn:uuid IRI. */
function feedId(name: string): string {
  const h = createHash('sha1').update(ID_NAMESPACE).update(name, 'utf8').digest().subarray(0, 16);
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.toString('hex');
  return `urn:uuid:${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/** Text as XML character data or attribute value (the same five escapes serve both). */
const xml = escapeHtml;

const TITLE_CHARS = 100;
/**
 * Words whose full stop ends no sentence: every grade name has "No.", and summaries say "e.g.".
 * Compared without case, as written before the stop.
 */
const ABBREVIATIONS: ReadonlySet<string> = new Set(['no', 'nos', 'e.g', 'i.e', 'vs', 'approx', 'incl', 'cf', 'st']);

/** The summary's first sentence: up to the first full stop before a space (or the end) that ends no abbreviation. */
export function firstSentence(summary: string): string {
  for (const stop of summary.matchAll(/\.(?=\s|$)/g)) {
    const word = /[^\s(]*$/.exec(summary.slice(0, stop.index))![0].toLowerCase();
    if (!ABBREVIATIONS.has(word)) return summary.slice(0, stop.index + 1);
  }
  return summary;
}

/**
 * An entry's title: its summary's first sentence, cut at a word past TITLE_CHARS (the whole is its
 * summary). A correction says so in its content and a category: its title stays the editor's sentence.
 */
function titleOf(summary: string): string {
  const sentence = firstSentence(summary);
  if (sentence.length <= TITLE_CHARS) return sentence;
  return `${sentence.slice(0, sentence.lastIndexOf(' ', TITLE_CHARS))}…`;
}

/** The page a class's change is read on: its page of the entry's crop year, or its current one. */
function pageOf(ds: Dataset, g: CompiledRecord, year: string): { href: string; record: CompiledRecord } {
  if (year === g.effective_crop_year || !yearsOf(g.grain_id, g.effective_crop_year, ds.past).includes(year))
    return { href: tableKey(g.grain_id), record: g };
  return { href: tableKey(g.grain_id, year), record: ds.past!.get(g.grain_id)!.get(year) as unknown as CompiledRecord };
}

/** A changed cell as `record`'s page shows it: its name, and its anchor (null where the page has no such cell now). */
function cellOn(record: CompiledRecord, c: Change): { label: string; anchor: string | null } {
  const factor = record.factor_groups.flatMap((g) => g.factors).find((f) => f.factor_id === c.factor_id);
  const column = c.grade === null ? 'ft' : record.grades.indexOf(c.grade);
  const label = `${factor?.factor_label ?? c.factor_id}, ${c.grade ?? record.fallthrough_label}`;
  return { label, anchor: factor && column !== -1 ? cellAnchor(factor.factor_id, column) : null };
}

/** One class's part of an entry: its page, and the cells and fields the entry changed in it. */
function classPart(ds: Dataset, entry: SourceEntry, g: CompiledRecord) {
  const { href, record } = pageOf(ds, g, entry.crop_year);
  const changes = (entry.changes ?? []).filter((c) => c.grain_id === g.grain_id);
  const cells = changes.filter(namesCell).map((c) => {
    const { label, anchor } = cellOn(record, c);
    return { href: anchor ? `${href}#${anchor}` : href, label };
  });
  const fields = [...new Set(changes.filter((c) => !namesCell(c)).map((c) => c.field ?? c.factor_id ?? 'the record'))];
  return { g, href, cells, fields };
}

function entryXml(ds: Dataset, entry: SourceEntry): string {
  const byId = new Map(ds.grains.map((g) => [g.grain_id, g]));
  const parts = entry.grain_ids_affected.flatMap((id) => (byId.has(id) ? [classPart(ds, entry, byId.get(id)!)] : []));
  const first = parts.find((p) => p.cells.length > 0)?.cells[0]?.href ?? parts[0]?.href ?? ROUTES.tables.path;
  const recorded = entry.changes !== null && entry.changes !== undefined;
  const linked = (c: { href: string; label: string }, i: number) =>
    html`${i ? ', ' : ''}<a href="${c.href}">${c.label}</a>`;
  const content = html`<p>${entry.summary}</p>
<p>${
    entry.correction
      ? `${correctionTitle(entry.crop_year)}, published ${entry.effective_date}.`
      : `Crop year ${entry.crop_year}, in effect from ${entry.effective_date}.`
  } Changelog entry <code>${entry.id}</code>.</p>
<ul>
${parts.map(
  (p) =>
    html`<li><a href="${p.href}">${p.g.grain_name} (${p.g.grain_id})</a>${
      p.cells.length > 0 && html`: printed numbers changed in ${p.cells.map(linked)}`
    }${p.fields.length > 0 && html`${p.cells.length ? '; also' : ':'} the API's fields ${p.fields.join(', ')}`}${
      recorded && p.cells.length === 0 && ', no printed number changed'
    }</li>\n`,
)}</ul>`;
  const lines = [
    `<entry>`,
    `<id>${feedId(`entry:${entry.id}`)}</id>`,
    `<title>${xml(titleOf(entry.summary))}</title>`,
    `<updated>${xml(entry.created_at)}</updated>`,
    `<link rel="alternate" type="text/html" href="${xml(first)}"/>`,
    ...parts.map((p) => `<link rel="related" type="text/html" title="${xml(p.g.grain_id)}" href="${xml(p.href)}"/>`),
    ...parts.map((p) => `<category term="${xml(p.g.grain_id)}" label="${xml(p.g.grain_name)}"/>`),
    `<category term="${xml(entry.crop_year)}" label="Crop year ${xml(entry.crop_year)}"/>`,
    ...(entry.correction ? [`<category term="correction" label="${xml(correctionTitle(entry.crop_year))}"/>`] : []),
    `<summary type="text">${xml(entry.summary)}</summary>`,
    `<content type="html">${xml(content.text)}</content>`,
    `</entry>`,
  ];
  return lines.join('\n');
}

export function renderChangesFeed(ds: Dataset): string {
  const entries = [...ds.changelog].sort(changelogOrder);
  // the newest moment the feed knows of: its newest entry's, or for none the tables' last check
  const times = entries.length ? entries.map((e) => e.created_at) : ds.grains.map((g) => g.last_scraped);
  const updated = times.sort().at(-1) ?? '1970-01-01T00:00:00Z';
  // no XML declaration: UTF-8 and XML 1.0 are what a document without one is (XML 1.0, section 4.3.3)
  return `<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="en">
<id>${feedId('feed')}</id>
<title>Grain grading tables: changes</title>
<subtitle>Every change to the Canadian Grain Commission's grading tables as this service publishes them, newest \
first: what changed, in which classes and crop year, with links to the tables.</subtitle>
<link rel="self" type="${FEED_MEDIA_TYPE}" href="${ROUTES.feed.path}"/>
<link rel="alternate" type="text/html" href="${ROUTES.tables.path}"/>
<updated>${xml(updated)}</updated>
<author><name>Grain grading tables</name></author>
${entries.map((e) => entryXml(ds, e)).join('\n')}
</feed>
`;
}
