// Small datasets of our own making, written to temporary folders, for the build and validation tests.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCoverage } from '../../build/changelog/files.ts';

/** The published order (dataset/index.yaml): interface.md's nine, then the other wheat classes. */
export const INTERFACE_NINE = [
  'CWRS',
  'CWAD',
  'CPSR',
  'CANOLA',
  'BARLEY_GP_CW',
  'BARLEY_GP_CE',
  'CORN_CW',
  'CORN_CE',
  'SOYBEANS',
];
export const OTHER_WHEAT = [
  'CWHWS',
  'CWRW',
  'CWSWS',
  'CWES',
  'CPSW',
  'CNHR',
  'CWSP',
  'CERS',
  'CEHRW',
  'CESRW',
  'CEAD',
  'CEWW',
  'CEOW',
  'CEFD',
];

/** Folders made by this test process: removed when it exits (KEEP_TEST_DIRS=1 keeps them to look at). */
const made: string[] = [];
process.once('exit', () => {
  if (process.env.KEEP_TEST_DIRS === '1') return;
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `grain-${prefix}-`));
  made.push(dir);
  return dir;
}

/** What the 2026/27 table of CWRS changes in the tests of a second crop year: No. 1's ergot limit. */
export const NEW_YEAR_SUMMARY = "The 2026/27 table: No. 1 CWRS's ergot limit is 0.03%.";

/**
 * The real dataset copied into a folder of the test's own, with CWRS re-checked for 2026/27 and its
 * No. 1 ergot limit 0.03 (the entry is the test's to draft): the dataset folder.
 */
export function newYearDataset(prefix: string, root: string): string {
  const dataset = join(tempDir(prefix), 'dataset');
  cpSync(join(root, 'dataset'), dataset, { recursive: true });
  const file = join(dataset, 'grains/CWRS.yaml');
  const yaml = readFileSync(file, 'utf8')
    .replace('effective_crop_year: 2025/26', 'effective_crop_year: 2026/27')
    .replace('last_scraped: 2026-04-12T00:00:00Z', 'last_scraped: 2026-11-25T00:00:00Z')
    .replace('factor_label: Ergot\n        thresholds: [0.04,', 'factor_label: Ergot\n        thresholds: [0.03,');
  writeFileSync(file, yaml);
  return dataset;
}

/** A valid grain file; the validation tests change one thing at a time. Line numbers matter there. */
export const baseGrain = (id = 'TEST') => `grain_id: ${id}
grain_name: Test Wheat ${id}
kind: wheat
region: western
effective_crop_year: 2025/26
source_url: https://example.invalid/${id.toLowerCase()}.html
source_section: Wheat, Test (${id})
last_scraped: 2026-04-12T00:00:00Z
grades: [No. 1 T, No. 2 T, T Feed]
fallthrough_label: Grade, if specs for T Feed not met
grade_floor_rules:
  - account: mildew
    floor_grade: No. 2 T
    note: Samples will be graded no lower than No. 2 T on account of mildew.
    factor_ids: [soundness]
footnotes:
  "1": A footnote.
factor_groups:
  - group_id: grading_factors
    group_label: Grading factors
    factors:
      - factor_id: soundness
        factor_label: Degree of soundness
        threshold_direction: qualitative
        footnote_ref: "1"
        thresholds: [Well matured, Fairly well matured, Sweet]
      - factor_id: test_weight
        factor_label: Minimum test weight
        unit: kg/hL
        unit_alt: g/0.5 L
        threshold_direction: minimum
        thresholds: [75 (365), 72 (350), 65 (315)]
        fallthrough: Wheat, Sample Account Light Weight
      - factor_id: ergot
        factor_label: Ergot
        thresholds: [0.04, 0.04, 0.10]
        fallthrough: Wheat, Sample Account Ergot
      - factor_id: stones
        factor_label: Stones
        thresholds: [0.03, 0.06, 0.10]
        fallthrough: 2.5% or less - Wheat, Rejected Over 2.5% - Wheat, Sample Salvage
        fallthrough_conditions:
          - {condition: <= 2.5%, grade: "Wheat, Rejected"}
          - {condition: "> 2.5%", grade: "Wheat, Sample Salvage"}
      - factor_id: total_foreign_material
        factor_label: Total Foreign material
        aggregates: [ergot, stones]
        thresholds: [0.5, 1.0, {type: no_limit, note: No limit within tolerances}]
        unlisted_parts: []
        parts_stated: not_stated
`;

export const baseChangelog = (ids: string[]) => `entries:
  - id: first
    crop_year: 2025/26
    effective_date: 2026-11-01
    grain_ids_affected: [${ids.join(', ')}]
    summary: First publication.
    created_at: 2026-11-01T10:00:00Z
`;

/**
 * A dataset folder as an editor commits it: the files given and, where they are valid, covered/
 * started from them (each class covered by the newest entry naming it), so that it builds.
 * `covered: false` leaves covered/ out.
 */
export function writeDataset(files: {
  grains: Record<string, string>;
  changelog?: string;
  index?: string;
  covered?: boolean;
}): string {
  const dir = tempDir('dataset');
  mkdirSync(join(dir, 'grains'));
  const ids = Object.keys(files.grains);
  writeFileSync(join(dir, 'index.yaml'), files.index ?? `grains: [${ids.join(', ')}]\n`);
  writeFileSync(join(dir, 'changelog.yaml'), files.changelog ?? baseChangelog(ids));
  for (const [id, text] of Object.entries(files.grains)) writeFileSync(join(dir, 'grains', `${id}.yaml`), text);
  if (files.covered !== false) startCoverage(dir);
  return dir;
}
