// References to a part of the docs lead somewhere: wherever the project's text names a section of
// a page (`docs/<page>.md, Section`, `docs/<page>.md "Section"`, `docs/<page>.md (Section)`, in
// prose, comments, strings and the error catalogue alike) and wherever a page or README.md says
// "see Section" of itself, that section is a heading of the page named; a quoted part after it
// (`Section, "Part"`) is one of the section's bold lead-ins or headings; the page exists.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { root } from './helpers/gateway.ts';

interface Section {
  /** The heading as written, without its backticks, and without a closing "(…)" of its own. */
  names: string[];
  body: string;
}

/** A page's headings (not the `#` lines of its code blocks), each with the text up to the next heading of its level. */
function sectionsOf(markdown: string): Section[] {
  const lines = markdown.split('\n');
  const heads: { level: number; text: string; at: number }[] = [];
  let fenced = false;
  lines.forEach((line, at) => {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const m = fenced ? null : /^(#{1,6})\s+(.+?)\s*$/.exec(line);
    if (m) heads.push({ level: m[1]!.length, text: m[2]!, at });
  });
  return heads.map((h, k) => {
    const end = heads.slice(k + 1).find((n) => n.level <= h.level)?.at ?? lines.length;
    const plain = h.text.replaceAll('`', '');
    return {
      names: [...new Set([h.text, plain, plain.replace(/\s*\([^)]*\)$/, '')])],
      body: lines.slice(h.at + 1, end).join('\n'),
    };
  });
}

const wordGoesOn = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}]/u.test(c);
const QUOTED = /^["“]([^"”]+)["”]/;

/**
 * Why `ref` (the text after a page's name, starting at the section's name) does not lead to a
 * section of `sections`, or undefined when it does.
 */
function unresolved(sections: Section[], ref: string): string | undefined {
  const quoted = QUOTED.exec(ref);
  let found: Section | undefined;
  let rest = '';
  if (quoted) {
    const q = quoted[1]!;
    found = sections.find((s) => s.names.some((n) => n.startsWith(q) && !wordGoesOn(n[q.length])));
    rest = ref.slice(quoted[0].length);
  } else {
    let longest = '';
    for (const s of sections)
      for (const n of s.names)
        if (n.length > longest.length && ref.startsWith(n) && !wordGoesOn(ref[n.length])) [found, longest] = [s, n];
    rest = ref.slice(longest.length);
  }
  if (!found) return 'no such heading';
  const part = /^,\s*["“]([^"”]+)["”]/.exec(rest)?.[1];
  if (part !== undefined && !found.body.includes(`**${part}`) && !new RegExp(`^#+ ${part}`, 'm').test(found.body))
    return `no "${part}" in ${found.names[0]}`;
  return undefined;
}

/** Comment and paragraph lines joined, so that a reference wrapped over two lines reads as one. */
const unwrap = (text: string) => text.replace(/[ \t]*\r?\n[ \t]*(?:(?:\/\/+|\*|#+)(?= |$))?[ \t]*/g, ' ');

const FILE_REF = /docs\/([a-z-]+)\.md(?:,[ ]+|[ ]+(?=["“(])|)(?:\([ ]*)?/g;
const SEE_REF = /\b[Ss]ee (?!docs\/)(?=["“]?\p{Lu})/gu;

/** Each reference in `text`: the page it names (undefined: the page the text is on) and what follows. */
function referencesIn(text: string, onPage?: string): { page: string | undefined; ref: string }[] {
  const refs: { page: string | undefined; ref: string }[] = [];
  const flat = unwrap(text);
  for (const m of flat.matchAll(FILE_REF)) {
    const ref = flat.slice(m.index + m[0].length, m.index + m[0].length + 200);
    if (m[0].length > `docs/${m[1]}.md`.length && /^["“]?\p{Lu}/u.test(ref)) refs.push({ page: m[1], ref });
    else refs.push({ page: m[1], ref: '' }); // a page named without a section: it must exist
  }
  if (onPage !== undefined)
    for (const m of flat.matchAll(SEE_REF)) refs.push({ page: undefined, ref: flat.slice(m.index + 4, m.index + 204) });
  return refs;
}

const SKIP = new Set(['node_modules', '.git', '.bundles', 'dist', 'site', 'var', 'coverage']);
const TEXT = /\.(ts|mjs|cjs|js|md|json|ya?ml|toml|vcl|conf|service|sh)$|(^|\/)(run|Containerfile)$/;

function textFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const path = dir ? `${dir}/${e.name}` : e.name;
    if (SKIP.has(e.name)) return [];
    if (e.isDirectory())
      return dir || ['build', 'dataset', 'docs', 'gateway', 'scripts', 'test', '.ci'].includes(e.name)
        ? textFiles(path)
        : [];
    return e.isFile() && TEXT.test(path) ? [path] : [];
  });
}

const pages = new Map<string, Section[]>();
function sectionsOfPage(file: string): Section[] | undefined {
  if (!pages.has(file))
    pages.set(file, existsSync(join(root, file)) ? sectionsOf(readFileSync(join(root, file), 'utf8')) : []);
  return existsSync(join(root, file)) ? pages.get(file) : undefined;
}

describe('references to sections of the docs', () => {
  const operations = sectionsOf(readFileSync(join(root, 'docs/operations.md'), 'utf8'));

  it('are told apart: a heading, a part of its section, and what is not there', () => {
    const cases: [ref: string, why: string | undefined][] = [
      ['Redis in production). More', undefined],
      ['Redis in production, "Lost data") more', undefined],
      ['"Redis in production", says what each setting buys', undefined],
      ['"Accounts CLI"', undefined], // its heading goes on with "(operators)"
      ['Accounts CLI: revoke', undefined],
      ['"Behind a CDN"). Set', undefined],
      ['Redis at scale)', 'no such heading'],
      ['"Redis in prod"', 'no such heading'],
      ['Redis in productions', 'no such heading'],
      ['Redis in production, "Lost keys")', 'no "Lost keys" in Redis in production'],
    ];
    for (const [ref, why] of cases) assert.equal(unresolved(operations, ref), why, ref);
  });

  it('are found in prose, in comments wrapped over lines, and as "see"', () => {
    const page = (p: string) => `docs/${p}.md`;
    const comment = `// the rule (${page('contract')},\n// Keys and registration) and ${page('sync')}: the rest`;
    assert.deepEqual(
      referencesIn(comment).map((r) => [r.page, r.ref.slice(0, 22)]),
      [
        ['contract', 'Keys and registration)'],
        ['sync', ''],
      ],
    );
    const prose = `one per directory (see When something goes\nwrong); see below; ${page('grading')} "The rules"`;
    assert.deepEqual(
      referencesIn(prose, 'docs/operations.md').map((r) => [r.page, r.ref.slice(0, 9)]),
      [
        ['grading', '"The rule'],
        [undefined, 'When some'],
      ],
    );
  });

  it('lead to a heading of the page named, in every file of the project', () => {
    const files = ['README.md', ...textFiles('')];
    assert.ok(files.includes('docs/operations.md') && files.includes('gateway/errors.ts'), 'walked');
    const broken: string[] = [];
    let checked = 0;
    for (const file of files) {
      const onPage =
        file.endsWith('.md') && (file === 'README.md' || /^docs\/[^/]+\.md$/.test(file)) ? file : undefined;
      for (const { page, ref } of referencesIn(readFileSync(join(root, file), 'utf8'), onPage)) {
        const target = page === undefined ? onPage! : `docs/${page}.md`;
        const sections = sectionsOfPage(target);
        const why = sections === undefined ? `${target} does not exist` : ref && unresolved(sections, ref);
        if (ref) checked++;
        if (why) broken.push(`${file}: ${target}, ${ref.slice(0, 60)}: ${why}`);
      }
    }
    assert.deepEqual(broken, []);
    assert.ok(checked > 200, `${checked} references checked`);
  });
});
