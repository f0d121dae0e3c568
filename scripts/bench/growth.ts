// npm run bench:growth [-- --classes 47 --entries 1000 --years 20]
// How the build and the gateway grow with the data (docs/performance.md, Growth): the real dataset,
// the real one with --classes more added in one changelog entry, and an archive of classes, entries
// and crop years (growth-dataset.ts: made by the project's own drafting). Each is built by the build
// CLI's bundle cold (no encodings kept), served by a gateway (growth-gateway.ts) loaded with data
// requests, then built again after a one-cell edit with its entry (the encodings kept) while the
// gateway swaps it in. A build's size is what its files take on disk, a file linked from another
// build or the encodings' cache counted once. Prints Markdown.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { draftChangelog } from '../../build/changelog/files.ts';
import { readArgs, usageExit } from '../../build/cli-args.ts';
import { POINTER_FILE } from '../../build/site-format.ts';
import { root } from './context.ts';
import { growthDataset } from './growth-dataset.ts';
import { growthGateway } from './growth-gateway.ts';

const spec = {
  command: 'npm run bench:growth --',
  usage: '[--classes N] [--entries N] [--years N] [--rounds N] [--requests N]',
  help: `
How the build and the gateway grow with the data (docs/performance.md, Growth). Three datasets: the
real one; the real one with N classes added in one changelog entry; and an archive of classes,
entries and crop years made through the project's own drafting (kept under node_modules/.cache/growth
once drafted). Each is built by the build's bundle cold, a gateway started on it and loaded with data
requests, then one cell edited and built again with the first build's encodings kept, which the
gateway swaps in. Wall time and peak RSS of the builds by /usr/bin/time; the gateway's by /proc; a
build's bytes on disk by its files' blocks, each inode once (and the edit's: how much of it is new).

  --classes N   classes added in one entry (default 47: the rest of the guide)
  --entries N   the archive's changelog entries (default 1000)
  --years N     the archive's crop years (default 20)
  --rounds N    runs of each dataset (default 1)
  --requests N  data requests to the gateway after its start (default 1000)

Exit codes: 0 measured, 1 failed, 2 usage.`,
  options: {
    classes: { type: 'string', default: '47' },
    entries: { type: 'string', default: '1000' },
    years: { type: 'string', default: '20' },
    rounds: { type: 'string', default: '1' },
    requests: { type: 'string', default: '1000' },
  },
} as const;

const { values } = readArgs(spec);
const NAMES = ['classes', 'entries', 'years', 'rounds', 'requests'] as const;
for (const name of NAMES)
  if (!/^\d+$/.test(values[name]!) || Number(values[name]) < 1)
    usageExit(spec, `--${name} must be a whole number from 1, not "${values[name]}"`);
const [added, entries, years, rounds, requests] = NAMES.map((n) => Number(values[n])) as [
  number,
  number,
  number,
  number,
  number,
];
const realClasses = readdirSync(join(root, 'dataset', 'grains')).length;

/** One build of `dataset` into `out`, its encodings kept in `cache`: seconds and peak RSS in MiB. */
function build(dataset: string, out: string, cache: string): { seconds: number; peakMiB: number } {
  const argv = ['scripts/run.mjs', 'build', '--dataset', dataset, '--out', out, '--cache', cache];
  const run = spawnSync('/usr/bin/time', ['-f', 'growth %e %M', process.execPath, ...argv], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  const m = /growth ([\d.]+) (\d+)/.exec(run.stderr);
  if (run.status !== 0 || !m) throw new Error(`the build failed (${run.status}): ${run.stderr.slice(-2000)}`);
  return { seconds: Number(m[1]), peakMiB: Number(m[2]) / 1024 };
}

/** One cell of CWRS changed, and its entry drafted: what an editor's small edit is. */
function editOneCell(dir: string) {
  const file = join(dir, 'grains', 'CWRS.yaml');
  const text = readFileSync(file, 'utf8');
  const edited = text.replace(/thresholds: \[ ?0\.2, 0\.3, 0\.5, 1\.0 ?\]/, 'thresholds: [0.2, 0.3, 0.6, 1.0]');
  if (edited === text) throw new Error('the cell to edit is not in CWRS.yaml any more: pick another');
  writeFileSync(file, edited);
  const drafted = draftChangelog(dir, {
    summary: 'One cell edited (a synthetic growth test).',
    effectiveDate: '2099-01-01',
    now: new Date('2099-01-01T00:00:00Z'),
  });
  if (!drafted.ok) throw new Error(`the entry was not drafted: ${drafted.reason}`);
}

/** The live build's files: their inodes (a file linked from another build or the encodings' cache is
 * one), and the bytes they take on disk (allocated blocks), each inode counted once. */
function published(site: string): { inodes: Map<bigint, number>; files: number } {
  const { dir } = JSON.parse(readFileSync(join(site, POINTER_FILE), 'utf8')) as { dir: string };
  const files = readdirSync(join(site, dir), { recursive: true, withFileTypes: true }).filter((f) => f.isFile());
  const inodes = new Map<bigint, number>();
  for (const f of files) {
    const s = statSync(join(f.parentPath, f.name), { bigint: true });
    inodes.set(s.ino, Number(s.blocks) * 512);
  }
  return { inodes, files: files.length };
}
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;
const onDisk = (inodes: Map<bigint, number>, except?: Map<bigint, number>) =>
  mb([...inodes].reduce((n, [ino, bytes]) => n + (except?.has(ino) ? 0 : bytes), 0));

const took = (r: { seconds: number; peakMiB: number }) => `${r.seconds.toFixed(1)} s, ${r.peakMiB.toFixed(0)} MiB`;
const mib = (n: number) => `${n.toFixed(0)} MiB`;

/** One dataset measured: the row of the report. */
async function measure(name: string, dir: string, work: string): Promise<string> {
  const [out, cache] = [join(work, 'site'), join(work, 'cache')];
  const cold = build(dir, out, cache);
  const first = published(out);
  const size = `${onDisk(first.inodes)} on disk, ${first.files} files`;
  const g = await growthGateway(out);
  try {
    const started = g.rssMiB();
    await g.load(requests);
    const loaded = g.rssMiB();
    editOneCell(dir);
    const warm = build(dir, out, cache);
    const { build_id } = JSON.parse(readFileSync(join(out, POINTER_FILE), 'utf8')) as { build_id: string };
    const edited = published(out);
    const added = `${onDisk(edited.inodes)} on disk, ${onDisk(edited.inodes, first.inodes)} of it new`;
    await g.serving(build_id);
    const swap = `${mib(g.peakMiB())} peak, ${mib(g.rssMiB())} after`;
    const gateway = `${(g.startMs / 1000).toFixed(2)} s, ${mib(started)} → ${mib(loaded)}`;
    return `| ${name} | ${took(cold)} | ${size} | ${took(warm)}, ${added} | ${gateway} | ${swap} |`;
  } finally {
    g.stop();
  }
}

const work = mkdtempSync(join(tmpdir(), 'grain-growth-'));
try {
  const archive = { classes: realClasses + added, entries, years };
  const datasets: [string, (dir: string) => void][] = [
    ['the real dataset', (dir) => cpSync(join(root, 'dataset'), dir, { recursive: true })],
    [
      `${added} classes added in one entry`,
      (dir) => growthDataset(root, dir, { ...archive, entries: 1, years: 1 }, log),
    ],
    [
      `${archive.classes} classes, ${entries} entries, ${years} crop years`,
      (dir) => growthDataset(root, dir, archive, log),
    ],
  ];
  const rows: string[] = [];
  for (const [name, make] of datasets) {
    for (let r = 0; r < rounds; r++) {
      const at = join(work, `${rows.length}`);
      make(join(at, 'dataset'));
      rows.push(await measure(name, join(at, 'dataset'), at));
      rmSync(at, { recursive: true, force: true });
    }
  }
  console.log(
    [
      '',
      `# ${spec.command} --classes ${added} --entries ${entries} --years ${years} --requests ${requests}`,
      '',
      '| dataset | cold build: time, peak RSS | published (each file once) | one cell edited, encodings kept: ' +
        'time, peak RSS, published | ' +
        `gateway: to /health, RSS at start → after ${requests} requests | gateway while the edit is swapped in |`,
      '|---|---|---|---|---|---|',
      ...rows,
    ].join('\n'),
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}

function log(line: string) {
  console.error(line);
}
