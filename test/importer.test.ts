// tier: full (the importer's CLIs)
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'yaml';
import { authorityRecord, compareRecords } from '../build/import/check-authority.ts';
import { draftGrain, type GrainMeta, readHeader } from '../build/import/draft-grain.ts';
import { toYaml, updateYaml } from '../build/import/grain-yaml.ts';
import { importPage } from '../build/import/import-page.ts';
import { parsePage } from '../build/import/parse-page.ts';
import { proposeConditions } from '../build/import/propose.ts';
import { readPage, readPageIndex } from '../build/import/read-page.ts';
import { loadDataset, loadYaml } from '../build/load/load.ts';
import { cellFromAuthority, readCell } from '../build/validate/cells.ts';
import { testChecks, validateGrainFile } from './helpers/build.ts';
import { tempDir } from './helpers/dataset.ts';
import { suite } from './helpers/suite.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const fixtures = join(root, 'test', 'fixtures');
const page = parsePage(readFileSync(join(fixtures, 'two-section-page.html'), 'utf8'));
const meta = (grain_id: string): GrainMeta => ({
  grain_id,
  grain_name: `Oats ${grain_id}`,
  kind: 'cereal',
  effective_crop_year: '2025/26',
  source_url: 'https://example.invalid/oats.html',
  last_scraped: '2026-04-12T00:00:00Z',
});
const section = (name: string) => page.sections.find((s) => s.name === name)!;
const recordOf = (yaml: string) => {
  const { record, errors } = validateGrainFile(loadYaml(yaml, 'draft.yaml'));
  assert.deepEqual(errors, []);
  return record!;
};

describe('authority page parser', () => {
  it('reads sections, notes, grade columns, footnotes and row marks', () => {
    assert.equal(page.modified, '2025-08-01');
    assert.deepEqual(
      page.sections.map((s) => s.name),
      ['Oats, Canada Western Test Yellow or Mixed (CWT)', 'Oats, Canada Eastern Test (CET)'],
    );
    const cwt = section('Oats, Canada Western Test Yellow or Mixed (CWT)');
    assert.deepEqual(cwt.notes, [
      'Samples of CWT will be graded no lower than No. 2 CWT on account of smut.',
      'The colour is added to the grade name.',
    ]);
    const [quality, factors] = cwt.tables;
    assert.deepEqual(quality!.grades, ['No. 1 CWT', 'No. 2 CWT', 'CW Feed']);
    assert.equal(quality!.fallthroughLabel, 'Grade, if specs for CW Feed not met');
    // the printed number, not the element id (fnt9)
    assert.deepEqual(quality!.footnotes, { '1': 'See Frost for the standard.' });
    assert.deepEqual(quality!.rows[0], {
      header: 'Degree of soundness',
      footnoteRefs: ['1'],
      cells: ['Well matured', 'Fairly well matured', 'Sweet'],
      fallthrough: '',
      isTotal: false,
      opensBlock: false,
    });
    assert.deepEqual(
      factors!.rows.map((r) => [r.isTotal, r.opensBlock]),
      [
        [false, false],
        [false, true],
        [false, false],
        [true, false],
        [false, true],
        [false, false],
        [false, false],
      ],
    );
  });

  it('refuses a page without tables, or with merged cells, in words', () => {
    assert.throws(() => parsePage('<html><main><p>nothing</p></main></html>'), /no grade determination tables/);
    const merged = readFileSync(join(fixtures, 'two-section-page.html'), 'utf8').replace(
      '<td>0.04</td><td>0.04</td>',
      '<td colspan="2">0.04</td>',
    );
    assert.throws(() => parsePage(merged), /merged cells/);
  });
});

describe('importer grammar', () => {
  const headers: [string, ReturnType<typeof readHeader>][] = [
    ['Ergot %', { label: 'Ergot', unit: '%', unit_alt: undefined, direction: 'maximum' }],
    ['Minimum protein %', { label: 'Minimum protein', unit: '%', unit_alt: undefined, direction: 'minimum' }],
    [
      'Minimum test weight kg/hL (g/0.5 L)',
      { label: 'Minimum test weight', unit: 'kg/hL', unit_alt: 'g/0.5 L', direction: 'minimum' },
    ],
    [
      'Minimum test weight kg/hL (g/0.5 L), CW',
      { label: 'Minimum test weight, CW', unit: 'kg/hL', unit_alt: 'g/0.5 L', direction: 'minimum' },
    ],
    [
      'Total % Foreign material',
      { label: 'Total Foreign material', unit: '%', unit_alt: undefined, direction: 'maximum' },
    ],
    ['Degree of soundness', { label: 'Degree of soundness', unit: '', unit_alt: undefined, direction: 'qualitative' }],
  ];
  for (const [header, expected] of headers) {
    it(`reads the row header "${header}"`, () => assert.deepEqual(readHeader(header), expected));
  }

  const conditions: [string, unknown][] = [
    ['Wheat, Sample CW Account Ergot', undefined],
    [
      '2.5% or less - Wheat, Rejected grade, Account Stones Over 2.5% - Wheat, Sample Salvage',
      [
        { condition: '<= 2.5%', region: null, grade: 'Wheat, Rejected grade, Account Stones' },
        { condition: '> 2.5%', region: null, grade: 'Wheat, Sample Salvage' },
      ],
    ],
    [
      'Wheat, Sample CW Account Fusarium Damage Over 10%- Wheat, Commercial Salvage',
      [
        { condition: '<= 10%', region: null, grade: 'Wheat, Sample CW Account Fusarium Damage' },
        { condition: '> 10%', region: null, grade: 'Wheat, Commercial Salvage' },
      ],
    ],
    [
      '2.5% or less— West - Canola, Rejected (grade) Account Stones, ' +
        'or East - Canola, Sample Canada Account Stones Over 2.5%—Canola, Sample Salvage',
      [
        { condition: '<= 2.5%', region: 'western', grade: 'Canola, Rejected (grade) Account Stones' },
        { condition: '<= 2.5%', region: 'eastern', grade: 'Canola, Sample Canada Account Stones' },
        { condition: '> 2.5%', region: null, grade: 'Canola, Sample Salvage' },
      ],
    ],
    [
      'Over 10%, either alone or in combination with each other, of amber durum - Wheat, Sample CW Account Admixture',
      [{ condition: '> 10%', region: null, grade: 'Wheat, Sample CW Account Admixture' }],
    ],
  ];
  for (const [text, expected] of conditions) {
    it(`proposes conditions for "${text.slice(0, 40)}…"`, () => assert.deepEqual(proposeConditions(text), expected));
  }

  const cells: [string, 'maximum' | 'qualitative', unknown][] = [
    ['0.10', 'maximum', '0.10'],
    ['75 (365)', 'maximum', '75 (365)'],
    ['No limit', 'maximum', 'No limit'],
    ['Not applicable', 'maximum', 'Not applicable'],
    ['10%, either alone or in combination', 'maximum', { value: '10', note: '10%, either alone or in combination' }],
    ['No limit within broken tolerances', 'maximum', { type: 'no_limit', note: 'No limit within broken tolerances' }],
    ['Consider overall appearance', 'maximum', { type: 'qualitative_judgment', value: 'Consider overall appearance' }],
    ['0.1O', 'maximum', { error: 'cannot read the number in "0.1O"' }],
    ['', 'maximum', { error: 'cannot read the number in ""' }],
    ['Cool and sweet', 'qualitative', 'Cool and sweet'],
  ];
  for (const [text, direction, expected] of cells) {
    it(`writes the authority cell "${text}" (${direction})`, () =>
      assert.deepEqual(cellFromAuthority(text, direction), expected));
  }

  const reads: [unknown, string | undefined, unknown][] = [
    [
      0.1,
      '0.10',
      { value_type: 'numeric', value: 0.1, value_alt: null, threshold_note: null, decimals: 2, partial: null },
    ],
    [65, '65', { value_type: 'numeric', value: 65, value_alt: null, threshold_note: null, decimals: 0, partial: null }],
    [
      '75 (365)',
      undefined,
      { value_type: 'numeric', value: 75, value_alt: 365, threshold_note: null, decimals: 0, partial: null },
    ],
    [
      'no minimum',
      undefined,
      { value_type: 'no_limit', value: null, value_alt: null, threshold_note: null, decimals: null, partial: null },
    ],
    [
      'n/a',
      undefined,
      {
        value_type: 'not_applicable',
        value: null,
        value_alt: null,
        threshold_note: null,
        decimals: null,
        partial: null,
      },
    ],
  ];
  for (const [raw, source, expected] of reads) {
    it(`reads the dataset cell ${JSON.stringify(raw)}`, () => {
      const r = readCell(raw, { direction: 'maximum', hasAltUnit: true, source: () => source });
      assert.deepEqual(r, { ok: expected });
    });
  }
  it('refuses an unknown key in a cell object', () => {
    const r = readCell({ vaule: 1 }, { direction: 'maximum', hasAltUnit: false, source: () => undefined });
    assert.deepEqual(r, {
      error: 'unknown field "vaule" in a cell; a cell may have type, value, value_alt, note, partial_of, partial_key',
      at: ['vaule'],
    });
  });
});

describe('import in place', () => {
  // The editor's file: a header, a comment on a row, quoting, flow lists.
  const file = `# header the editor wrote
grades: [No. 1 T, No. 2 T]
notes:
  - "Quoted: as the editor left it."
factors:
  - factor_id: ergot # checked twice
    thresholds: [0.04, 0.10]
  - factor_id: stones
    thresholds: [0.03, 0.06]
`;
  // What the import gives, written in another style: the file's own style must win.
  const block = (notes: string, ergot: string, extra = '') => `grades:
  - No. 1 T
  - No. 2 T
notes:
  - ${notes}
factors:
  - factor_id: ergot
    thresholds:
      - ${ergot}
      - 0.10
${extra}  - factor_id: stones
    thresholds:
      - 0.03
      - 0.06
`;
  const changedLines = (a: string, b: string) => {
    const was = a.split('\n');
    return b.split('\n').flatMap((l, i) => (l === was[i] ? [] : [l]));
  };
  for (const [name, fresh, lines] of [
    ['the same values change no byte', block('"Quoted: as the editor left it."', '0.04'), []],
    [
      'a changed cell changes its own line, its comment kept',
      block("'Quoted: as the editor left it.'", '0.05'),
      ['    thresholds: [0.05, 0.10]'],
    ],
    ['a changed note keeps its quotes', block("'Quoted: now otherwise.'", '0.04'), ['  - "Quoted: now otherwise."']],
    [
      'an added row is its own lines',
      block('"Quoted: as the editor left it."', '0.04', '  - factor_id: excreta\n    thresholds: [0.01, 0.03]\n'),
      [
        '  - factor_id: excreta',
        '    thresholds: [0.01, 0.03]',
        '  - factor_id: stones',
        '    thresholds: [0.03, 0.06]',
        '',
      ],
    ],
  ] as const) {
    it(name, () => {
      const out = updateYaml(file, parseDocument(fresh));
      assert.deepEqual(changedLines(file, out), lines);
      assert.ok(out.startsWith('# header the editor wrote\n'));
      assert.ok(out.includes('- factor_id: ergot # checked twice\n'));
      assert.deepEqual(parseDocument(out).toJS(), parseDocument(fresh).toJS());
    });
  }
});

describe('draft grain files', () => {
  it('turns a section into a record with what the page states, exact as printed', () => {
    const draft = draftGrain(section('Oats, Canada Western Test Yellow or Mixed (CWT)'), meta('CWT'));
    const record = recordOf(toYaml(draft, ' test'));
    assert.equal(record.colour_modifier, true);
    assert.deepEqual(record.colours, ['Yellow', 'Mixed'], 'proposed from the class name');
    assert.ok(
      record.notes.some((n) => /colour is added to the grade name/.test(n)),
      'the notes as printed',
    );
    assert.deepEqual(record.grade_floor_rules, [
      {
        account: 'smut',
        floor_grade: 'No. 2 CWT',
        note: 'Samples of CWT will be graded no lower than No. 2 CWT on account of smut.',
        factor_ids: [], // the page does not say which factor smut is judged on
      },
    ]);
    assert.deepEqual(record.footnotes, { '1': 'See Frost for the standard.' });
    const [quality, factors] = record.factor_groups;
    assert.deepEqual(
      quality!.factors.map((f) => [f.factor_id, f.unit, f.unit_alt, f.threshold_direction, f.footnote_ref]),
      [
        ['degree_of_soundness', '', null, 'qualitative', '1'],
        ['minimum_test_weight', 'kg/hL', 'g/0.5 L', 'minimum', null],
        ['minimum_protein', '%', null, 'minimum', null],
      ],
    );
    assert.deepEqual(quality!.factors[1]!.thresholds['CW Feed'], {
      value_type: 'numeric',
      value: 48.5,
      value_alt: 230,
      threshold_note: null,
      decimals: 1,
      partial: null,
    });
    assert.deepEqual(quality!.factors[2]!.thresholds['No. 1 CWT'], {
      value_type: 'numeric',
      value: 11,
      value_alt: null,
      threshold_note: null,
      decimals: 1,
      partial: null,
    });
    const byId = Object.fromEntries(factors!.factors.map((f) => [f.factor_id, f]));
    assert.deepEqual(byId.ergot!.thresholds['CW Feed'], {
      value_type: 'numeric',
      value: 0.1,
      value_alt: null,
      threshold_note: null,
      decimals: 2,
      partial: null,
    });
    assert.deepEqual(byId.total_shrunken_and_broken!.aggregates, ['shrunken', 'broken']);
    assert.equal(byId.total_shrunken_and_broken!.is_aggregate, true);
    assert.deepEqual(byId.total_shrunken_and_broken!.thresholds['CW Feed'], {
      value_type: 'no_limit',
      value: null,
      value_alt: null,
      threshold_note: 'No limit within broken tolerances',
      decimals: null,
      partial: null,
    });
    assert.deepEqual(byId.smudge!.thresholds['No. 2 CWT'], {
      value_type: 'qualitative_judgment',
      value: 'Consider overall appearance',
      value_alt: null,
      threshold_note: null,
      decimals: null,
      partial: null,
    });
    assert.deepEqual(byId.contrasting_classes!.thresholds['CW Feed'], {
      value_type: 'numeric',
      value: 10,
      value_alt: null,
      threshold_note: '10%, either alone or in combination, of durum',
      decimals: 0,
      partial: null,
    });
    assert.deepEqual(
      byId.stones!.fallthrough_conditions?.map((c) => c.region),
      ['western', 'eastern', null],
    );
  });

  it('sums every earlier row when the page draws no block and no name matches', () => {
    const record = recordOf(toYaml(draftGrain(section('Oats, Canada Eastern Test (CET)'), meta('CET')), ' test'));
    const total = record.factor_groups[0]!.factors.at(-1)!;
    assert.deepEqual(total.aggregates, ['excreta', 'wild_oats']);
    assert.deepEqual(record.grades, ['No. 1 CET', 'No. 2 CET']);
    assert.equal(record.fallthrough_label, 'Grade, if No. 2 specs not met');
  });

  it('reads a one-grade table, a table included in a total, and a row printed without its unit', () => {
    const feed = parsePage(readFileSync(join(fixtures, 'feed-page.html'), 'utf8'));
    const record = recordOf(toYaml(draftGrain(feed.sections[0]!, meta('CTF')), ' test'));
    assert.deepEqual(record.grades, ['CT Feed']);
    assert.deepEqual(record.grade_floor_rules, []); // the page's note is not a floor rule
    const [factors, damage] = record.factor_groups;
    assert.equal(damage!.group_id, 'grading_factors_included_in_total_damage');
    const byId = Object.fromEntries([...factors!.factors, ...damage!.factors].map((f) => [f.factor_id, f]));
    assert.deepEqual(byId.total_damage!.aggregates, ['total_heated_binburnt', 'fireburnt', 'total_sprouted']);
    assert.equal(byId.total_damage!.thresholds['CT Feed']!.value_type, 'not_applicable');
    assert.deepEqual(byId.total_heated_binburnt!.aggregates, ['binburnt']);
    assert.deepEqual(byId.total_sprouted!.aggregates, ['severely_sprouted']);
    // as printed: no unit, so a descriptive row whose one cell says "No limit"
    assert.deepEqual(
      [byId.sprouted!.unit, byId.sprouted!.threshold_direction, byId.sprouted!.thresholds['CT Feed']!.value_type],
      ['', 'qualitative', 'no_limit'],
    );
    assert.deepEqual(byId.contrasting_classes!.thresholds['CT Feed'], {
      value_type: 'numeric',
      value: 10,
      value_alt: null,
      threshold_note: '10% or less, either alone or in combination, of durum',
      decimals: 0,
      partial: null,
    });
    assert.deepEqual(byId.contrasting_classes!.fallthrough_conditions, [
      { condition: '> 10%', region: null, grade: 'Sample CT Account Admixture' },
    ]);
  });

  it("keeps the editor's judgements when it updates a file", () => {
    const s = section('Oats, Canada Eastern Test (CET)');
    const first = draftGrain(s, meta('CET'));
    first.factor_groups[0]!.group_id = 'foreign';
    first.factor_groups[0]!.factors[2]!.aggregates = ['wild_oats'];
    first.factor_groups[0]!.factors[0]!.factor_id = 'excreta_renamed';
    first.factor_groups[0]!.factors[2]!.aggregates = ['excreta_renamed'];
    first.factor_groups[0]!.factors[1]!.fallthrough_conditions = [
      { condition: '<= 50%', region: null, grade: 'Mixed Grain CE Oats' },
    ];
    const again = draftGrain(s, meta('CET'), first);
    assert.equal(again.factor_groups[0]!.group_id, 'foreign');
    assert.equal(again.factor_groups[0]!.factors[0]!.factor_id, 'excreta_renamed');
    assert.deepEqual(again.factor_groups[0]!.factors[2]!.aggregates, ['excreta_renamed']);
    assert.equal(toYaml(again, ' x'), toYaml(first, ' x'));
  });

  it('writes a grain file through `npm run import`, with the URL and date from pages.tsv', () => {
    const out = tempDir('import');
    mkdirSync(join(out, 'grains'));
    const run = (args: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', join(root, 'scripts/import.ts'), ...args, '--out', out], {
        encoding: 'utf8',
        cwd: root,
      });
    const ambiguous = run([join(fixtures, 'two-section-page.html'), 'CWT']);
    assert.equal(ambiguous.status, 2);
    assert.match(ambiguous.stderr, /--section "Oats, Canada Western Test Yellow or Mixed \(CWT\)"/);
    const ok = run([
      join(fixtures, 'two-section-page.html'),
      'CWT',
      '--section',
      'Oats, Canada Western Test Yellow or Mixed (CWT)',
      '--kind',
      'cereal',
      '--crop-year',
      '2025/26',
      '--name',
      'Oats CWT',
    ]);
    assert.equal(ok.status, 0, ok.stderr);
    const yaml = readFileSync(join(out, 'grains', 'CWT.yaml'), 'utf8');
    assert.match(yaml, /^source_url: https:\/\/example\.invalid\/oats\.html$/m);
    assert.match(yaml, /^last_scraped: 2026-04-12T00:00:00Z$/m);
    assert.match(yaml, /^ {8}thresholds: \[0\.04, 0\.04, 0\.10\]$/m);
    recordOf(yaml);
  });
});

const shared = join(root, '..', 'shared', 'authority-pages');
suite('the shared authority pages', !existsSync(shared) && 'no ../shared/authority-pages here', () => {
  const ds = loadDataset(join(root, 'dataset'));
  for (const file of ds.grains) {
    it(`reproduce every number of ${file.file}`, () => {
      const { record, errors } = validateGrainFile(file);
      assert.deepEqual(errors, []);
      const page = readPageIndex(shared).find((r) => r.grainIds.includes(record!.grain_id));
      assert.ok(page, `a shared page for ${record!.grain_id}`);
      assert.equal(record!.source_url, page.sourceUrl);
      assert.equal(record!.last_scraped, `${page.retrieved}T00:00:00Z`);
      const theirs = authorityRecord(readFileSync(join(shared, page.file), 'utf8'), file, testChecks());
      assert.ok(theirs.record, theirs.problem);
      assert.deepEqual(compareRecords(record!, theirs.record!), []);
    });
  }

  it('re-imported over the dataset, a page changes no byte; a year on, last_scraped and crop year only', async () => {
    for (const row of readPageIndex(shared)) {
      const page = await readPage(join(shared, row.file));
      for (const id of row.grainIds) {
        const same = importPage(page, id, join(root, 'dataset'));
        assert.ok(same.ok && same.before !== undefined, id);
        assert.equal(same.text, same.before, `${id}: the same page leaves the file as it is`);
        const later = importPage({ ...page, retrieved: '2026-11-25T00:00:00Z' }, id, join(root, 'dataset'));
        assert.ok(later.ok);
        const was = same.before.split('\n');
        const changed = later.text.split('\n').filter((l, i) => l !== was[i]);
        const expected = ['last_scraped: 2026-11-25T00:00:00Z'];
        if (!same.before.includes('effective_crop_year: 2026/27')) expected.unshift('effective_crop_year: 2026/27');
        assert.deepEqual(changed, expected, id);
      }
    }
  });

  it('cover every page: each grain id of pages.tsv is published', () => {
    const published = new Set(ds.grains.map((f) => (f.data as { grain_id: string }).grain_id));
    for (const row of readPageIndex(shared)) for (const id of row.grainIds) assert.ok(published.has(id), id);
    assert.equal(published.size, 23);
  });

  it('check-authority reports no difference and exits 0', () => {
    const run = (dataset: string) =>
      spawnSync(
        process.execPath,
        ['--import', 'tsx', join(root, 'scripts/check-authority.ts'), '--pages', shared, '--dataset', dataset],
        { encoding: 'utf8', cwd: root },
      );
    const clean = run(join(root, 'dataset'));
    assert.equal(clean.status, 0, clean.stdout + clean.stderr);
    assert.match(clean.stdout, /^0 difference\(s\), 0 page\(s\) not checked$/m);
  });
});
