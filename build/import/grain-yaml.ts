// A grain file as the importer writes it: a new class's whole file (toYaml), or an import written
// into the class's existing file in place (docs/dataset-editing.md, Workflow):
// the file is parsed as a yaml Document and only the values the page changed are replaced, so its
// comments, quoting and flow style stay as the editor left them. The same page imported twice
// gives the same bytes; a changed cell changes its own line.
import { Document, isMap, isScalar, isSeq, parseDocument, type Scalar, visit, type Node as YamlNode } from 'yaml';
import type { SourceGrain } from '../types.ts';
import { decimalsOf, PRINTED_NUMBER } from '../validate/cells.ts';

/** How every grain file is written. */
const YAML_OPTIONS = { lineWidth: 0, flowCollectionPadding: false } as const;

/** YAML an editor can read: threshold rows on one line where they fit, numbers as printed. */
export function toYaml(grain: SourceGrain, header: string): string {
  const doc = styledDocument(grain);
  doc.commentBefore = header;
  return doc.toString(YAML_OPTIONS);
}

/** The grain as a yaml Document, styled as toYaml writes it. */
export function styledDocument(grain: SourceGrain): Document {
  const doc = new Document(grain);
  visit(doc, {
    Pair(_, pair) {
      if (!isScalar(pair.key)) return;
      const key = String(pair.key.value);
      if ((key === 'thresholds' || key === 'grades') && isSeq(pair.value)) {
        const short = pair.value.items.every((n) => isScalar(n) && String(n.value).length <= 24);
        if (short) pair.value.flow = true;
      }
      if (key === 'thresholds' || key === 'value' || key === 'value_alt') markNumbers(pair.value as YamlNode);
      if (['aggregates', 'unlisted_parts', 'factor_ids', 'colours'].includes(key) && isSeq(pair.value))
        pair.value.flow = true;
    },
  });
  return doc;
}

/** A printed number held as text ("0.10") becomes a YAML number that keeps its decimals. */
function markNumbers(node: YamlNode | null) {
  if (!node) return;
  visit(node, {
    Scalar(key, s) {
      if (key === 'key' || typeof s.value !== 'string' || !PRINTED_NUMBER.test(s.value)) return;
      const text = s.value;
      s.value = Number(text);
      const d = decimalsOf(text);
      if (d) s.minFractionDigits = d;
    },
  });
}

/** `text` (a grain file) with the values of `fresh` (the import's styled document) merged in. */
export function updateYaml(text: string, fresh: Document): string {
  const doc = parseDocument(text);
  doc.contents = merge(doc.contents as YamlNode | null, fresh.contents as YamlNode | null) as typeof doc.contents;
  return doc.toString(YAML_OPTIONS);
}

/** A scalar as the file prints it: a number with the decimals it is printed with. */
const printed = (s: Scalar) =>
  typeof s.value === 'number' && s.minFractionDigits ? s.value.toFixed(s.minFractionDigits) : s.value;

/** The keys by which list items are matched, so an added row changes its lines only. */
const ID_KEYS = ['factor_id', 'group_id', 'track_id', 'account', 'footnote'];
const idOf = (n: unknown, key: string) => (isMap(n) ? String((n.get(key) as unknown) ?? '') : '');

function merge(old: YamlNode | null, next: YamlNode | null): YamlNode | null {
  if (!old || !next) return next;
  if (isScalar(old) && isScalar(next)) {
    if (printed(old) === printed(next)) return old;
    if (typeof old.value === typeof next.value) {
      // the value changes; the editor's quoting stays (the writer quotes where it must)
      old.value = next.value;
      old.minFractionDigits = next.minFractionDigits;
      return old;
    }
    return keepComments(old, next);
  }
  if (isMap(old) && isMap(next)) {
    const keep = new Set(next.items.map((p) => String(isScalar(p.key) ? p.key.value : p.key)));
    old.items = old.items.filter((p) => keep.has(String(isScalar(p.key) ? p.key.value : p.key)));
    let at = 0;
    for (const pair of next.items) {
      const key = String(isScalar(pair.key) ? pair.key.value : pair.key);
      const i = old.items.findIndex((p) => String(isScalar(p.key) ? p.key.value : p.key) === key);
      if (i < 0) old.items.splice(at++, 0, pair);
      else {
        old.items[i]!.value = merge(old.items[i]!.value as YamlNode | null, pair.value as YamlNode | null);
        at = i + 1;
      }
    }
    return old;
  }
  if (isSeq(old) && isSeq(next)) {
    // matched by id only where every item has one of its own: a node is never placed twice
    const unique = (items: unknown[], k: string) =>
      items.every((n) => idOf(n, k)) && new Set(items.map((n) => idOf(n, k))).size === items.length;
    const key = ID_KEYS.find((k) => unique(next.items, k) && unique(old.items, k));
    if (key) {
      const before = new Map(old.items.map((n) => [idOf(n, key), n as YamlNode]));
      old.items = next.items.map((n) => merge(before.get(idOf(n, key)) ?? null, n as YamlNode));
    } else {
      old.items = next.items.map((n, i) => merge((old.items[i] as YamlNode | undefined) ?? null, n as YamlNode));
    }
    return old;
  }
  return keepComments(old, next);
}

function keepComments(old: YamlNode, next: YamlNode): YamlNode {
  next.commentBefore = old.commentBefore;
  next.comment = old.comment;
  return next;
}
