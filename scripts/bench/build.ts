// npm run bench:build [-- --scale 100] [--keep DIR]: times the build of the real dataset and of a generated one
// `scale` times larger (9×scale classes copied from the real files under new ids, and
// 100×scale changelog entries), so the growth of the build's cost is measured, not guessed.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { buildSite } from '../../build/build-site.ts';
import { startCoverage } from '../../build/changelog/files.ts';
import { publishSite } from '../../build/publish.ts';

const { values } = parseArgs({ options: { scale: { type: 'string', default: '100' }, keep: { type: 'string' } } });
const scale = Number(values.scale);
const real = resolve('dataset');

function generate(dir: string) {
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

function time(label: string, datasetDir: string) {
  const out = values.keep ? join(resolve(values.keep), 'site') : join(tmpdir(), `grain-bench-out-${process.pid}`);
  rmSync(out, { recursive: true, force: true });
  const t0 = performance.now();
  const r = buildSite(datasetDir);
  if (!r.ok) throw new Error(`${label}: ${r.errors.length} dataset errors`);
  const t1 = performance.now();
  publishSite(out, r.site);
  const t2 = performance.now();
  const bytes = [...r.site.files.values()].reduce((n, b) => n + b.length, 0);
  console.log(
    `${label}: ${r.dataset.grains.length} classes, ${r.dataset.changelog.length} changelog entries → ` +
      `${Object.keys(r.site.manifest.routes).length} routes, ` +
      `${Object.keys(r.site.manifest.bodies).length} distinct bodies, ` +
      `${(bytes / 1048576).toFixed(1)} MiB; build ${((t1 - t0) / 1000).toFixed(1)} s, ` +
      `publish ${((t2 - t1) / 1000).toFixed(1)} s, ` +
      `peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`,
  );
  if (!values.keep) rmSync(out, { recursive: true, force: true });
}

if (!values.keep) time('real dataset', real);
const dir = values.keep ? join(resolve(values.keep), 'dataset') : join(tmpdir(), `grain-bench-dataset-${process.pid}`);
rmSync(dir, { recursive: true, force: true });
generate(dir);
startCoverage(dir);
time(`${scale}× dataset`, dir);
if (!values.keep) rmSync(dir, { recursive: true, force: true });
