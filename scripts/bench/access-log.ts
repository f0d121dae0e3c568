// npm run bench:log [-- --duration 4 --warmup 2 --rounds 12 --connections 32 --out FILE]
// The access log's and the metrics' cost on the hot path (docs/performance.md): the gateway with
// ACCESS_LOG=errors (the default), with ACCESS_LOG=all, and with METRICS_TOKEN set, each with its
// stdout read through a pipe as a log collector reads it, against a bare node:http server sending
// the same bytes. One key, GET /api/grains/CWRS, measured twice: in alternated rounds (req/s, as
// the goals are stated) and with all servers loaded at once (CPU time a request, the
// steadier figure on a shared machine). Prints the table (Markdown) to stdout, and to FILE with --out.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Bench, RECORD, runBench } from './context.ts';
import { seedAccounts } from './data.ts';
import { atOnceRatio, probe, rounds, type Target, together } from './load.ts';
import { publishRealSite } from './real-site.ts';
import { runHeader } from './report.ts';
import { startBare, startGateway } from './servers.ts';

const CONFIGS: [name: string, env: Record<string, string>][] = [
  ['ACCESS_LOG=errors (default)', {}],
  ['ACCESS_LOG=all', { ACCESS_LOG: 'all' }],
  ['all, METRICS_TOKEN set', { ACCESS_LOG: 'all', METRICS_TOKEN: 'bench-metrics-token-0123456789' }],
];
const BARE = 'bare node:http';

async function main(b: Bench) {
  const siteDir = await publishRealSite(b);

  const targets: Target[] = [];
  for (const [i, [name, env]] of CONFIGS.entries()) {
    const state = join(b.work, `state-${i}`);
    const keysFile = seedAccounts(state, 1);
    const gateway = await startGateway(b, {
      STATE_DIR: state,
      SITE_DIR: siteDir,
      RATE_LIMIT_PER_HOUR: '1000000000',
      ...env,
    });
    targets.push({ name, url: gateway.url, pid: gateway.pid, load: { path: RECORD, keysFile } });
  }
  const key = readFileSync(targets[0]!.load.keysFile!, 'utf8').trim();
  const sample = await probe(targets[0]!.url, RECORD, { 'x-api-key': key });
  if (sample.status !== 200) throw new Error(`the gateway answered ${sample.status}`);
  const bare = await startBare(b, sample.status, sample.headers, sample.body);
  targets.push({ name: BARE, url: bare.url, pid: bare.pid, load: targets[0]!.load });

  const alternated = await rounds(b, targets);
  const atOnce = await together(b, targets);
  const bareRps = alternated.get(BARE)!.rps;
  const bareUs = alternated.get(BARE)!.cpuUs!;
  const lines = [
    runHeader(b),
    '',
    '| server | alternated: req/s | ÷ bare | CPU µs a request | at once: CPU µs a request | bare ÷ server (rounds) |',
    '|---|---|---|---|---|---|',
  ];
  for (const t of targets) {
    const a = alternated.get(t.name)!;
    const o = atOnce.get(t.name)!;
    const ratio = t.name === BARE ? '' : `${(a.rps / bareRps).toFixed(3)}`;
    const cpuRatio = t.name === BARE ? '' : ` (${(bareUs / a.cpuUs!).toFixed(3)})`;
    const r = atOnceRatio(atOnce, BARE, t.name);
    const spread = t.name === BARE ? '' : `**${r.median.toFixed(3)}** (${r.lowest.toFixed(3)}–${r.highest.toFixed(3)})`;
    lines.push(
      `| ${t.name} | ${a.rps.toFixed(0)} (${Math.min(...a.all!).toFixed(0)}–${Math.max(...a.all!).toFixed(0)}) ` +
        `| ${ratio} | ${a.cpuUs!.toFixed(2)}${cpuRatio} | ${o.cpuUs.toFixed(2)} | ${spread} |`,
    );
  }
  return lines.join('\n');
}

runBench(process.argv.slice(2), main, {
  help: `Measures what the access log and the metrics cost a request: the gateway with ACCESS_LOG=errors,
with ACCESS_LOG=all and with METRICS_TOKEN set, against a bare node:http server sending the same
bytes (docs/performance.md). Prints the table (Markdown) to stdout.`,
});
