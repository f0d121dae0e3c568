// A table page (build/pages/table-page.ts) read back as a reader's program would: parsed with
// parse5, each factor's row by its group and header, each grade's column by its header.
import assert from 'node:assert/strict';
import { type DefaultTreeAdapterMap, parse } from 'parse5';

type Node = DefaultTreeAdapterMap['childNode'] | DefaultTreeAdapterMap['document'];
export type Element = DefaultTreeAdapterMap['element'];

const isElement = (n: Node): n is Element => 'tagName' in n;
const children = (n: Node): Node[] => ('childNodes' in n ? (n.childNodes as Node[]) : []);

/** Every element under `n` (in document order) that `match` accepts. */
export function findAll(n: Node, match: (e: Element) => boolean): Element[] {
  const out: Element[] = [];
  for (const c of children(n)) {
    if (isElement(c) && match(c)) out.push(c);
    out.push(...findAll(c, match));
  }
  return out;
}
export const attr = (e: Element, name: string) => e.attrs.find((a) => a.name === name)?.value;
/** An element's text as a reader sees it: whitespace collapsed, the visually hidden words kept out. */
export function text(n: Node, skip: (e: Element) => boolean = () => false): string {
  const walk = (x: Node): string =>
    '#text' === x.nodeName
      ? (x as DefaultTreeAdapterMap['textNode']).value
      : isElement(x) && skip(x)
        ? ''
        : children(x).map(walk).join('');
  return walk(n).replace(/\s+/g, ' ').trim();
}

export interface ReadTable {
  doc: Node;
  /** The column headers, in order: the factor column, the grades, the fall-through column. */
  columns: string[];
  /** `group label › factor header` → the row's cells after its header, one per column after the first. */
  rows: Map<string, Element[]>;
  /** The cells marked changed, as `factor header › column`. */
  changed: string[];
}

/** The row header's text without its footnote mark. */
const headerText = (th: Element): string => text(th, (e) => e.tagName === 'sup');

export function readTable(html: string): ReadTable {
  const doc = parse(html);
  const [table] = findAll(doc, (e) => e.tagName === 'table' && attr(e, 'class') === 'grading');
  assert.ok(table, 'the page has the grading table');
  const columns = findAll(table, (e) => e.tagName === 'th' && attr(e, 'scope') === 'col').map((th) => text(th));
  const rows = new Map<string, Element[]>();
  const changed: string[] = [];
  for (const tbody of findAll(table, (e) => e.tagName === 'tbody')) {
    const [group] = findAll(tbody, (e) => e.tagName === 'th' && attr(e, 'scope') === 'rowgroup');
    assert.ok(group, 'each row group has its header');
    for (const tr of findAll(tbody, (e) => e.tagName === 'tr')) {
      const cells = children(tr).filter(isElement);
      const th = cells[0]!;
      if (attr(th, 'scope') !== 'row') continue;
      const key: string = `${text(group)} › ${headerText(th)}`;
      assert.ok(!rows.has(key), `one row for ${key}`);
      const tds = cells.slice(1);
      assert.equal(tds.length, columns.length - 1, `${key}: a cell per column`);
      rows.set(key, tds);
      for (const [i, td] of tds.entries()) {
        if (attr(td, 'data-changed') !== undefined) changed.push(`${headerText(th)} › ${columns[i + 1]}`);
      }
    }
  }
  return { doc, columns, rows, changed };
}

/** A changed cell's new value and its old one (the text in its <del>). */
export function changedCell(td: Element): { now: string; was: string } {
  const [del] = findAll(td, (e) => e.tagName === 'del');
  assert.ok(del, 'a changed cell holds the old value in <del>');
  return { now: text(td, (e) => attr(e, 'class') === 'was'), was: text(del) };
}
