// Reads one of the authority's "primary grade determination" pages into a plain model of its
// tables. Only what the page states is captured here; judgement (ids, aggregates, conditions) is
// left to draft-grain.ts and to the editor.
import { parse } from 'parse5';

type Node = {
  nodeName: string;
  tagName?: string;
  attrs?: { name: string; value: string }[];
  childNodes?: Node[];
  value?: string;
};

export interface PageRow {
  /** Row header text without unit-less footnote markers, whitespace normalised. */
  header: string;
  footnoteRefs: string[];
  /** One text per grade column, whitespace normalised ("" for an empty cell). */
  cells: string[];
  /** Text of the fall-through column, "" when empty or absent. */
  fallthrough: string;
  /** The row is styled as a total (class "active"). */
  isTotal: boolean;
  /** The page draws a heavy rule above this row: it opens a visual block. */
  opensBlock: boolean;
}

export interface PageTable {
  /** Caption before the last ", ": the record the table belongs to. */
  section: string;
  /** Caption after the last ", ": the group, e.g. "foreign material". */
  group: string;
  grades: string[];
  fallthroughLabel: string | null;
  rows: PageRow[];
  footnotes: Record<string, string>;
}

export interface PageSection {
  name: string;
  tables: PageTable[];
  /** Paragraphs printed between the section heading and its tables. */
  notes: string[];
}

export interface Page {
  title: string;
  modified: string | null;
  sections: PageSection[];
}

export class PageError extends Error {}

const attr = (n: Node, name: string) => n.attrs?.find((a) => a.name === name)?.value;
const hasClass = (n: Node, c: string) => (attr(n, 'class') ?? '').split(/\s+/).includes(c);
const kids = (n: Node) => n.childNodes ?? [];
export const normalise = (s: string) => s.replace(/[\s\u00a0]+/g, ' ').trim();

function* walk(n: Node): Generator<Node> {
  yield n;
  for (const c of kids(n)) yield* walk(c);
}

function find(n: Node, tag: string): Node[] {
  const out: Node[] = [];
  for (const c of walk(n)) if (c.tagName === tag) out.push(c);
  return out;
}

/** Visible text; footnote markers and screen-reader-only spans left out, <br> as a space. */
function text(n: Node, refs?: string[]): string {
  if (n.nodeName === '#text') return n.value ?? '';
  if (n.tagName === 'br') return ' ';
  if (n.tagName === 'script' || n.tagName === 'style') return '';
  if (hasClass(n, 'wb-inv')) return '';
  if (n.tagName === 'sup') {
    const ref = normalise(
      kids(n)
        .map((c) => text(c))
        .join(''),
    );
    if (refs && ref) refs.push(ref);
    return ' ';
  }
  return kids(n)
    .map((c) => text(c, refs))
    .join('');
}

const styleHasTopRule = (n: Node) => /border-top\s*:\s*2px/.test(attr(n, 'style') ?? '');

function readTable(table: Node): PageTable {
  const caption = find(table, 'caption')[0];
  if (!caption) throw new PageError('a table has no caption');
  const captionText = normalise(text(caption));
  const cut = captionText.lastIndexOf(', ');
  if (cut < 0) throw new PageError(`table caption "${captionText}" does not name a record and a group`);
  const thead = find(table, 'thead')[0];
  const headRow = thead && find(thead, 'tr')[0];
  if (!headRow) throw new PageError(`table "${captionText}" has no header row`);
  const heads = kids(headRow)
    .filter((c) => c.tagName === 'th' || c.tagName === 'td')
    .map((c) => normalise(text(c)));
  const last = heads[heads.length - 1] ?? '';
  const fallthroughLabel = /^Grade, if\b/i.test(last) ? last : null;
  const grades = heads.slice(1, fallthroughLabel ? -1 : undefined);
  if (grades.length === 0) throw new PageError(`table "${captionText}" has no grade columns`);

  const rows: PageRow[] = [];
  for (const tbody of find(table, 'tbody')) {
    for (const tr of kids(tbody).filter((c) => c.tagName === 'tr')) {
      const cells = kids(tr).filter((c) => c.tagName === 'th' || c.tagName === 'td');
      if (cells.some((c) => attr(c, 'colspan') || attr(c, 'rowspan'))) {
        throw new PageError(`table "${captionText}" has merged cells, which the importer does not read yet`);
      }
      const refs: string[] = [];
      const header = normalise(text(cells[0]!, refs));
      const values = cells.slice(1).map((c) => normalise(text(c)));
      const expected = grades.length + (fallthroughLabel ? 1 : 0);
      if (values.length !== expected) {
        throw new PageError(
          `row "${header}" of "${captionText}" has ${values.length} cells; the header has ${expected}`,
        );
      }
      rows.push({
        header,
        footnoteRefs: refs,
        cells: values.slice(0, grades.length),
        fallthrough: fallthroughLabel ? values[grades.length]! : '',
        isTotal: hasClass(tr, 'active') || /^Total\b/.test(header),
        opensBlock: styleHasTopRule(cells[0]!),
      });
    }
  }

  const footnotes: Record<string, string> = {};
  // The key is the number the page prints ("Footnote 1"); element ids are page-unique and can differ.
  let printed = '';
  for (const n of walk(table)) {
    if (n.tagName === 'dt') printed = /(\w+)\s*$/.exec(normalise(text(n)))?.[1] ?? '';
    if (n.tagName !== 'dd') continue;
    const dd = n;
    const key = printed || /^fnt(\w+)$/.exec(attr(dd, 'id') ?? '')?.[1];
    if (!key) continue;
    const paragraphs = kids(dd).filter((c) => c.tagName === 'p' && !hasClass(c, 'fn-rtn'));
    footnotes[key] = normalise(paragraphs.map((p) => text(p)).join(' '));
  }
  return {
    section: captionText.slice(0, cut),
    group: captionText.slice(cut + 2),
    grades,
    fallthroughLabel,
    rows,
    footnotes,
  };
}

export function parsePage(html: string): Page {
  const doc = parse(html) as unknown as Node;
  const title = normalise(text(find(doc, 'title')[0] ?? { nodeName: 'x' }));
  const modified =
    find(doc, 'meta')
      .find((m) => attr(m, 'name') === 'dcterms.modified')
      ?.attrs?.find((a) => a.name === 'content')?.value ?? null;
  const main = find(doc, 'main')[0] ?? doc;

  // Walk the main content in document order: an <h2> opens a section, paragraphs after it are its
  // notes, and each table joins the section its caption names.
  const sections = new Map<string, PageSection>();
  const notesByHeading = new Map<string, string[]>();
  let heading = '';
  const visit = (n: Node) => {
    if (n.tagName === 'h2') {
      heading = normalise(text(n));
      if (!notesByHeading.has(heading)) notesByHeading.set(heading, []);
      return;
    }
    if (n.tagName === 'table') {
      const t = readTable(n);
      let s = sections.get(t.section);
      if (!s) {
        s = { name: t.section, tables: [], notes: [] };
        sections.set(t.section, s);
      }
      s.tables.push(t);
      return;
    }
    if (n.tagName === 'a') return; // download and navigation links are not notes
    if (n.tagName === 'p' && heading && !find(n, 'a').length) {
      const p = normalise(text(n));
      if (p) notesByHeading.get(heading)!.push(p);
      return;
    }
    for (const c of kids(n)) visit(c);
  };
  visit(main);
  for (const s of sections.values()) s.notes = notesByHeading.get(s.name) ?? [];
  if (sections.size === 0) throw new PageError('the page has no grade determination tables');
  return { title, modified, sections: [...sections.values()] };
}
