// npm run bench:growth [-- --classes 47 --rounds 1]
// How the build grows with the data (docs/performance.md, Growth): the real dataset copied, and
// --classes more classes added to it in one changelog entry drafted by the project's own drafting
// (npm run changelog's draftChangelog), each a copy of a real class under a new id; then the build
// CLI's bundle runs on it cold (no encodings kept), and again after a one-cell edit with its entry
// (the encodings of the first build kept), each measured by /usr/bin/time (wall time and peak RSS).
// The real dataset is built the same way beside it. Prints Markdown.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { draftChangelog } from '../../build/changelog/files.ts';
import { readArgs, usageExit } from '../../build/client/cli/args.ts';
import { root } from './context.ts';

const spec = {
  command: 'npm run bench:growth --',
  usage: '[--classes N] [--rounds N]',
  help: `
How the build grows with the data: the real dataset, and the real dataset with N classes more added
in one changelog entry (copies of real classes under new ids, the entry drafted as npm run changelog
drafts it), each built by the build's bundle cold, then again after a one-cell edit with the first
build's encodings kept; wall time and peak RSS by /usr/bin/time (docs/performance.md, Growth).

  --classes N  classes added in one entry (default 47: the rest of the guide)
  --rounds N   builds of each dataset (default 1)

Exit codes: 0 measured, 1 failed, 2 usage.`,
  options: { classes: { type: 'string', default: '47' }, rounds: { type: 'string', default: '1' } },
} as const;

const { values } = readArgs(spec);
for (const name of ['classes', 'rounds'] as const)
  if (!/^\d+$/.test(values[name]!) || Number(values[name]) < 1)
    usageExit(spec, `--${name} must be a whole number from 1, not "${values[name]}"`);
const added = Number(values.classes);
const rounds = Number(values.rounds);

/** The real dataset with `n` classes more, each a real class's copy under the id SYNTH_<i>, in one entry. */
function grownDataset(dir: string, n: number) {
  cpSync(join(root, 'dataset'), dir, { recursive: true });
  const index = parseDocument(readFileSync(join(dir, 'index.yaml'), 'utf8'));
  const ids = (index.toJS() as { grains: string[] }).grains;
  for (let i = 1; i <= n; i++) {
    const from = ids[(i - 1) % ids.length]!;
    const id = `SYNTH_${String(i).padStart(3, '0')}`;
    const text = readFileSync(join(dir, 'grains', `${from}.yaml`), 'utf8');
    writeFileSync(
      join(dir, 'grains', `${id}.yaml`),
      text.replace(new RegExp(`^grain_id: ${from}$`, 'm'), `grain_id: ${id}`),
    );
    (index.get('grains') as { add(v: string): void }).add(id);
  }
  writeFileSync(join(dir, 'index.yaml'), index.toString());
  const drafted = draftChangelog(dir, {
    summary: `${n} classes added (a synthetic growth test).`,
    effectiveDate: '2026-11-28',
    now: new Date('2026-11-28T00:00:00Z'),
  });
  if (!drafted.ok) throw new Error(`the entry was not drafted: ${drafted.reason}`);
}

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
  const edited = text.replace('thresholds: [0.2, 0.3, 0.5, 1.0]', 'thresholds: [0.2, 0.3, 0.6, 1.0]');
  if (edited === text) throw new Error('the cell to edit is not in CWRS.yaml any more: pick another');
  writeFileSync(file, edited);
  const drafted = draftChangelog(dir, {
    summary: 'One cell edited (a synthetic growth test).',
    effectiveDate: '2026-11-29',
    now: new Date('2026-11-29T00:00:00Z'),
  });
  if (!drafted.ok) throw new Error(`the entry was not drafted: ${drafted.reason}`);
}

/**
 * The gateway (npm start's way) on the build in `site`: its resident set once /health answers,
 * in MiB, and the time from the spawn to that answer.
 */
async function gatewayOn(site: string): Promise<{ rssMiB: number; startMs: number }> {
  const t0 = performance.now();
  // the embedded store and the build on disk, whatever this shell exports (REDIS_URL, UPSTREAM_URL…)
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(REDIS_|UPSTREAM_)/.test(k)));
  const child = spawn(process.execPath, ['scripts/start.mjs'], {
    cwd: root,
    env: { ...env, PORT: '0', HOST: '127.0.0.1', SITE_DIR: site, STATE_DIR: join(site, '..', 'state') },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const deadline = Date.now() + 30_000;
  const waiting = () => {
    if (child.exitCode !== null) throw new Error(`the gateway exited (${child.exitCode}) before answering`);
    if (Date.now() > deadline) throw new Error('the gateway did not answer /health within 30 s');
    return new Promise((r) => setTimeout(r, 10));
  };
  try {
    let out = '';
    let port = 0;
    while (!port) {
      out += child.stdout.read()?.toString() ?? '';
      port = Number(/"event":"listening","port":(\d+)/.exec(out)?.[1] ?? 0);
      if (!port) await waiting();
    }
    child.stdout.resume();
    while ((await fetch(`http://127.0.0.1:${port}/health`).catch(() => null))?.status !== 200) await waiting();
    const startMs = performance.now() - t0;
    const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
    return { rssMiB: Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024, startMs };
  } finally {
    child.kill('SIGKILL');
  }
}

const mib = (r: { seconds: number; peakMiB: number }) => `${r.seconds.toFixed(1)} s, ${r.peakMiB.toFixed(0)} MiB`;
const work = mkdtempSync(join(tmpdir(), 'grain-growth-'));
try {
  const rows: string[] = [];
  for (const [name, n] of [
    ['the real dataset', 0],
    [`${added} classes added in one entry`, added],
  ] as const) {
    for (let r = 0; r < rounds; r++) {
      const dir = join(work, `dataset-${n}-${r}`);
      if (n === 0) cpSync(join(root, 'dataset'), dir, { recursive: true });
      else grownDataset(dir, n);
      const [out, cache] = [join(work, `site-${n}-${r}`), join(work, `cache-${n}-${r}`)];
      const cold = build(dir, out, cache);
      editOneCell(dir);
      const warm = build(dir, out, cache);
      const g = await gatewayOn(out);
      rows.push(
        `| ${name} | ${mib(cold)} | ${mib(warm)} | ${g.rssMiB.toFixed(0)} MiB, ${(g.startMs / 1000).toFixed(2)} s |`,
      );
    }
  }
  console.log(
    [
      '',
      `# ${spec.command} --classes ${added} --rounds ${rounds}`,
      '',
      '| dataset | cold build: time, peak RSS | after a one-cell edit, encodings kept | gateway: RSS, to /health |',
      '|---|---|---|---|',
      ...rows,
    ].join('\n'),
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
