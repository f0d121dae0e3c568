// The synthetic datasets of npm run bench:growth, made through the project's own drafting
// (npm run changelog's draftChangelog), so that every entry, coverage file and past year is what
// an editor's runs would have written. From a copy of the real dataset: the classes added in one
// entry, each a real class's copy under a new id; then, for each crop year after the newest real
// one, an entry moving every class to that year (a re-check), and single-class edits (a note
// revised) until the changelog holds the entries asked for. Drafting is the cost (each run reads
// and checks the whole dataset), so a dataset made once is kept under node_modules/.cache/growth,
// keyed by what it is made of: its parameters, the real dataset and the drafting's sources.
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { parseDocument, type YAMLSeq } from 'yaml';
import { coverageFiles } from '../../build/changelog/coverage.ts';
import { draftEntries, entriesYaml } from '../../build/changelog/draft-entries.ts';
import { draftChangelog, startCoverage } from '../../build/changelog/files.ts';
import { unloggedChanges } from '../../build/changelog/guard.ts';
import { COVERED_DIR, PAST_DIR } from '../../build/load/covered.ts';
import { loadDataset } from '../../build/load/load.ts';
import type { CompiledRecord, SourceEntry } from '../../build/types.ts';
import { cropYearOf, cropYearsOf } from '../../build/validate/crop-years.ts';
import { createSchemaChecks } from '../../build/validate/schema-errors.ts';
import { validateDataset } from '../../build/validate/validate.ts';

export interface GrowthShape {
  /** Classes in all (at least the real dataset's): the rest added in one entry. */
  classes: number;
  /** Changelog entries in all (at least the real ones, the added classes' and one per crop year). */
  entries: number;
  /** Crop years in all, the real dataset's first one included. */
  years: number;
}

const CACHE = 'node_modules/.cache/growth';
/** What a dataset is drafted from, besides its shape: a change to any of these makes it again. */
const SOURCES = [
  'dataset',
  'build/changelog',
  'build/load',
  'build/validate',
  'build/schema',
  'scripts/bench/growth-dataset.ts',
];

function filesUnder(root: string, path: string): string[] {
  if (!statSync(join(root, path)).isDirectory()) return [join(root, path)];
  return readdirSync(join(root, path), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

function cacheKey(root: string, shape: GrowthShape): string {
  const hash = createHash('sha256').update(JSON.stringify(shape));
  for (const dir of SOURCES) for (const file of filesUnder(root, dir)) hash.update(file).update(readFileSync(file));
  return hash.digest('hex').slice(0, 16);
}

const yamlOf = (file: string) => parseDocument(readFileSync(file, 'utf8'));
const seconds = (d: Date) => `${d.toISOString().slice(0, 19)}Z`;

function draft(dir: string, summary: string, at: Date) {
  const drafted = draftChangelog(dir, { summary, effectiveDate: at.toISOString().slice(0, 10), now: at });
  if (!drafted.ok) throw new Error(`the entry "${summary}" was not drafted: ${drafted.reason}`);
  return drafted.entries.length;
}

/** Each class a real one's copy under SYNTH_<i>, added to the index, and their entry drafted. */
function addClasses(dir: string, n: number, at: Date): string[] {
  const index = yamlOf(join(dir, 'index.yaml'));
  const ids = (index.toJS() as { grains: string[] }).grains;
  const real = [...ids];
  for (let i = 1; i <= n; i++) {
    const from = real[(i - 1) % real.length]!;
    const id = `SYNTH_${String(i).padStart(3, '0')}`;
    const text = readFileSync(join(dir, 'grains', `${from}.yaml`), 'utf8');
    writeFileSync(
      join(dir, 'grains', `${id}.yaml`),
      text.replace(new RegExp(`^grain_id: ${from}$`, 'm'), `grain_id: ${id}`),
    );
    (index.get('grains') as YAMLSeq).add(id);
    ids.push(id);
  }
  writeFileSync(join(dir, 'index.yaml'), index.toString());
  if (n > 0) draft(dir, `${n} classes added (a synthetic growth test).`, at);
  return ids;
}

/** The final state of each class edited in memory, written into its YAML file. */
function writeClasses(dir: string, grains: CompiledRecord[], edited: Set<string>) {
  for (const g of grains) {
    if (!edited.has(g.grain_id)) continue;
    const file = join(dir, 'grains', `${g.grain_id}.yaml`);
    const doc = yamlOf(file);
    doc.set('last_scraped', g.last_scraped);
    doc.set('effective_crop_year', g.effective_crop_year);
    if (g.notes?.length) doc.set('notes', g.notes);
    writeFileSync(file, doc.toString({ flowCollectionPadding: false }));
  }
}

/**
 * The steps drafted in memory by the drafting's own functions (unloggedChanges, draftEntries), as
 * one `npm run changelog` after each edit would draft them, and the files written once at the end:
 * drafting through the files would read the whole changelog back at every step.
 */
function draftSteps(dir: string, shape: GrowthShape, at: (notBefore?: number) => Date) {
  const loaded = loadDataset(dir);
  const { dataset, errors } = validateDataset(loaded, createSchemaChecks());
  if (!dataset || !loaded.coverage) throw new Error(`the grown dataset does not validate: ${errors[0]?.message}`);
  let coverage = loaded.coverage;
  const grains = dataset.grains;
  const added: SourceEntry[] = [];
  const edited = new Set<string>();
  const step = (summary: string, edits: { index: number; change: Partial<CompiledRecord> }[]) => {
    for (const { index, change } of edits) {
      const next = { ...grains[index]!, ...change };
      grains[index] = { ...next, crop_years: cropYearsOf(next, coverage) };
      edited.add(next.grain_id);
    }
    const now = at();
    const unlogged = unloggedChanges(dataset, coverage);
    const draft = draftEntries(dataset, coverage, unlogged, { summary, effectiveDate: seconds(now).slice(0, 10), now });
    coverage = draft.coverage;
    dataset.changelog.push(...draft.entries);
    added.push(...draft.entries);
  };
  const oldest = Math.min(...grains.map((g) => Number(g.effective_crop_year.slice(0, 4))));
  // the crop years after the oldest: every class is moved to each in turn
  const years = Array.from({ length: shape.years - 1 }, (_, k) => oldest + 1 + k);
  const edits = Math.max(0, shape.entries - dataset.changelog.length - years.length);
  let made = 0;
  for (const [k, year] of years.entries()) {
    const scraped = seconds(at(Date.UTC(year, 8, 1)));
    const moved = grains.map((_, index) => ({
      index,
      change: { last_scraped: scraped, effective_crop_year: cropYearOf(scraped) },
    }));
    step(`Every class re-checked for crop year ${cropYearOf(scraped)} (a synthetic growth test).`, moved);
    for (const due = Math.round((edits * (k + 1)) / years.length); made < due; made++) {
      const index = made % grains.length;
      const notes = [...(grains[index]!.notes ?? [])];
      notes.splice(Math.max(0, notes.length - 1), 1, `Synthetic growth-test note, revision ${made + 1}.`);
      step(`A note of ${grains[index]!.grain_id} revised (a synthetic growth test).`, [{ index, change: { notes } }]);
    }
  }
  if (!added.length) return;
  writeClasses(dir, grains, edited);
  const covered = join(dir, COVERED_DIR);
  mkdirSync(join(covered, PAST_DIR), { recursive: true });
  for (const [name, text] of coverageFiles(coverage)) writeFileSync(join(covered, name), text);
  const changelog = readFileSync(join(dir, 'changelog.yaml'), 'utf8');
  writeFileSync(
    join(dir, 'changelog.yaml'),
    `${changelog.endsWith('\n') ? changelog : `${changelog}\n`}${entriesYaml(added)}`,
  );
}

/** A crop year `years` earlier: 2025/26 → 2005/06 for 20. */
const earlier = (year: string, years: number) => {
  const start = Number(year.slice(0, 4)) - years;
  return `${start}/${String((start + 1) % 100).padStart(2, '0')}`;
};

/**
 * The copied real dataset moved `years` crop years back, every date and crop year alike, and its
 * coverage started afresh on it: so that the archive's last crop year is one that has begun, and
 * every entry drafted after it is dated in the past, as the build requires (no entry dated after
 * the day it runs). The entries' recorded `changes` stay as written: nothing checks their values.
 */
function moveBack(dir: string, years: number) {
  const day = (text: string) => text.replace(/^(\d{4})/, (y) => String(Number(y) - years));
  const move = (file: string, rules: [RegExp, (m: string) => string][]) => {
    let text = readFileSync(file, 'utf8');
    for (const [pattern, to] of rules) text = text.replace(pattern, to);
    writeFileSync(file, text);
  };
  const cropYear = (line: string) => line.replace(/\d{4}\/\d{2}$/, (y) => earlier(y, years));
  const date = (line: string) => line.replace(/\d{4}-\d{2}-\d{2}/, (d) => day(d));
  for (const name of readdirSync(join(dir, 'grains'))) {
    move(join(dir, 'grains', name), [
      [/^effective_crop_year: .*$/m, cropYear],
      [/^last_scraped: .*$/m, date],
    ]);
  }
  move(join(dir, 'changelog.yaml'), [
    [/^ {4}crop_year: .*$/gm, cropYear],
    [/^ {4}(effective_date|created_at): .*$/gm, date],
  ]);
  rmSync(join(dir, COVERED_DIR), { recursive: true });
  const refused = startCoverage(dir);
  if (refused) throw new Error(`the real dataset moved back ${years} years does not start its coverage: ${refused}`);
}

function draftDataset(root: string, dir: string, shape: GrowthShape, today: Date) {
  cpSync(join(root, 'dataset'), dir, { recursive: true });
  const grains = readdirSync(join(dir, 'grains')).map((f) => readFileSync(join(dir, 'grains', f), 'utf8'));
  const oldest = Math.min(...grains.map((t) => Number(/^effective_crop_year: (\d{4})/m.exec(t)![1])));
  // the last crop year the archive moves every class into has begun before the crop year of today
  const lastAllowed = Number(cropYearOf(today.toISOString()).slice(0, 4)) - 1;
  const back = Math.max(0, oldest + shape.years - 1 - lastAllowed);
  if (back > 0) moveBack(dir, back);
  const realClasses = (yamlOf(join(dir, 'index.yaml')).toJS() as { grains: string[] }).grains.length;
  const real = (yamlOf(join(dir, 'changelog.yaml')).toJS() as { entries: { created_at: string }[] }).entries;
  // every step is dated after the one before, the first after the real entries: the changelog's order is its dates'
  let clock = Math.max(...real.map((e) => Date.parse(e.created_at)));
  const at = (notBefore = 0) => {
    clock = Math.max(clock + 60_000, notBefore);
    return new Date(clock);
  };
  addClasses(dir, Math.max(0, shape.classes - realClasses), at());
  draftSteps(dir, shape, at);
}

/**
 * A dataset of `shape`, drafted into the cache once and copied to `dir` (a fresh folder): returns
 * whether it was drafted now (slow) or found.
 */
export function growthDataset(root: string, dir: string, shape: GrowthShape, log: (s: string) => void): boolean {
  const kept = join(root, CACHE, `${shape.classes}-${shape.entries}-${shape.years}-${cacheKey(root, shape)}`);
  const fresh = !existsSync(kept);
  if (fresh) {
    log(`drafting ${shape.classes} classes, ${shape.entries} entries, ${shape.years} crop years (kept for next time)`);
    const making = `${kept}.making`;
    rmSync(making, { recursive: true, force: true });
    mkdirSync(join(root, CACHE), { recursive: true });
    draftDataset(root, making, shape, new Date());
    renameSync(making, kept);
  }
  cpSync(kept, dir, { recursive: true });
  return fresh;
}
