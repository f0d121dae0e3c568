// npm run bench:build [-- --scale 100 --keep DIR --out FILE]: times the build of the real dataset and of a
// generated one `scale` times larger (9×scale classes copied from the real files under new ids, and
// 100×scale changelog entries), so the growth of the build's cost is measured, not guessed. Prints
// its report to stdout, and writes it to FILE with --out.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildSite } from '../../build/build-site.ts';
import { startCoverage } from '../../build/changelog/files.ts';
import { readArgs, usageExit } from '../../build/cli-args.ts';
import { publishSite } from '../../build/publish/publish.ts';
import { emitReport } from './context.ts';

const real = resolve('dataset');

function generate(dir: string, scale: number) {
  const ids = (readFileSync(join(real, 'index.yaml'), 'utf8').match(/^ {2}- (\S+)$/gm) ?? []).map((l) => l.slice(4));
  mkdirSync(join(dir, 'grains'), { recursive: true });
  const all: string[] = [];
  for (let copy = 0; copy < scale; copy++) {
    for (const id of ids) {
      const nid = `${id}_${String(copy).padStart(3, '0')}`;
      all.push(nid);
      const text = readFileSync(join(real, 'grains', `${id}.yaml`), 'utf8').replace(
        /^grain_id: .*$/m,
        `grain_id: ${nid}`,
      );
      writeFileSync(join(dir, 'grains', `${nid}.yaml`), text);
    }
  }
  writeFileSync(join(dir, 'index.yaml'), `grains:\n${all.map((i) => `  - ${i}\n`).join('')}`);
  const entries = Array.from({ length: 100 * scale }, (_, n) => {
    const affected = [all[n % all.length], all[(n * 7) % all.length]].filter((v, i, a) => a.indexOf(v) === i);
    const day = new Date(Date.UTC(2020, 0, 1) + n * 3_600_000 * 5);
    return `  - id: gen-${n}
    crop_year: 2025/26
    effective_date: ${day.toISOString().slice(0, 10)}
    grain_ids_affected: [${affected.join(', ')}]
    summary: Generated entry ${n} for the build benchmark, about as long as a real summary of an import.
    created_at: ${day.toISOString().replace(/\.\d{3}Z$/, 'Z')}
`;
  });
  writeFileSync(join(dir, 'changelog.yaml'), `entries:\n${entries.join('')}`);
  return all.length;
}

async function time(label: string, datasetDir: string, keep?: string): Promise<string> {
  const out = keep ? join(resolve(keep), 'site') : join(tmpdir(), `grain-bench-out-${process.pid}`);
  rmSync(out, { recursive: true, force: true });
  const t0 = performance.now();
  const r = await buildSite(datasetDir);
  if (!r.ok) throw new Error(`${label}: ${r.errors.length} dataset errors`);
  const t1 = performance.now();
  publishSite(out, r.site);
  const t2 = performance.now();
  const bytes = [...r.site.files.values()].reduce((n, b) => n + b.length, 0);
  if (!keep) rmSync(out, { recursive: true, force: true });
  return (
    `- ${label}: ${r.dataset.grains.length} classes, ${r.dataset.changelog.length} changelog entries → ` +
    `${Object.keys(r.site.manifest.routes).length} routes, ` +
    `${Object.keys(r.site.manifest.bodies).length} distinct bodies, ` +
    `${(bytes / 1048576).toFixed(1)} MiB; build ${((t1 - t0) / 1000).toFixed(1)} s, ` +
    `publish ${((t2 - t1) / 1000).toFixed(1)} s, ` +
    `peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`
  );
}

async function main(argv: string[]) {
  const spec = {
    command: 'npm run bench:build --',
    usage: '[--scale N] [--keep DIR] [--out FILE]',
    help: `
Times the build of the real dataset and of one generated N times larger (9×N classes, 100×N
changelog entries), so that the growth of its cost is measured (docs/performance.md).

  --scale N    how many times larger the generated dataset is (default 100)
  --keep DIR   build the generated dataset in DIR and keep it (the real one is not timed then)
  --out FILE   write the report to FILE too

Exit codes: 0 measured, 2 usage.`,
    options: { scale: { type: 'string', default: '100' }, keep: { type: 'string' }, out: { type: 'string' } },
  } as const;
  const { values } = readArgs(spec, argv);
  if (!/^[1-9]\d*$/.test(values.scale)) usageExit(spec, `--scale must be a whole number from 1, not "${values.scale}"`);
  const scale = Number(values.scale);
  const command = `npm run bench:build${argv.length ? ` -- ${argv.join(' ')}` : ''}`;
  const lines = [`\`${command}\`: ${cpus().length} × ${cpus()[0]?.model}, Node ${process.version}.`, ''];
  if (!values.keep) lines.push(await time('real dataset', real));
  const dir = values.keep
    ? join(resolve(values.keep), 'dataset')
    : join(tmpdir(), `grain-bench-dataset-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  generate(dir, scale);
  startCoverage(dir);
  lines.push(await time(`${scale}× dataset`, dir, values.keep));
  if (!values.keep) rmSync(dir, { recursive: true, force: true });
  emitReport(lines.join('\n'), values.out);
}

await main(process.argv.slice(2));
