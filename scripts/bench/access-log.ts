// npm run bench:log [-- --duration 4 --warmup 2 --rounds 12 --connections 32]
// The access log's and the metrics' cost on the hot path (docs/performance.md): the gateway with
// ACCESS_LOG=all (the default), with ACCESS_LOG=off, and with METRICS_TOKEN set, each with its
// stdout read through a pipe as a log collector reads it, against a bare node:http server sending
// the same bytes. One key, GET /api/grains/CWRS, measured twice: in alternated rounds (req/s, as
// the goals are stated) and with all servers loaded at once (CPU time a request, the
// steadier figure on a shared machine). Prints both tables for docs/performance.md.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RECORD, ROUNDS, runBench, work } from './context.ts';
import { seedAccounts } from './data.ts';
import { probe, rounds, type Target, together } from './load.ts';
import { publishRealSite, requireWrkAndTwoCores } from './real-site.ts';
import { startBare, startGateway } from './servers.ts';

const CONFIGS: [name: string, env: Record<string, string>][] = [
  ['ACCESS_LOG=all (default)', {}],
  ['ACCESS_LOG=off', { ACCESS_LOG: 'off' }],
  ['all, METRICS_TOKEN set', { METRICS_TOKEN: 'bench-metrics-token-0123456789' }],
];
const BARE = 'bare node:http';

async function main() {
  requireWrkAndTwoCores();
  const siteDir = publishRealSite();

  const targets: Target[] = [];
  for (const [i, [name, env]] of CONFIGS.entries()) {
    const state = join(work, `state-${i}`);
    const keysFile = seedAccounts(state, 1);
    const gateway = await startGateway({
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
  const bare = await startBare(sample.status, sample.headers, sample.body);
  targets.push({ name: BARE, url: bare.url, pid: bare.pid, load: targets[0]!.load });

  const alternated = await rounds(targets);
  const atOnce = await together(targets, BARE);
  const bareRps = alternated.get(BARE)!.rps;
  const bareUs = alternated.get(BARE)!.cpuUs!;
  console.log(`\n${ROUNDS} rounds each, ${new Date().toISOString().slice(0, 10)}, Node ${process.version}\n`);
  console.log(
    '| server | alternated: req/s | ÷ bare | CPU µs a request | at once: CPU µs a request | bare ÷ server (rounds) |',
  );
  console.log('|---|---|---|---|---|---|');
  for (const t of targets) {
    const a = alternated.get(t.name)!;
    const o = atOnce.get(t.name)!;
    const ratio = t.name === BARE ? '' : `${(a.rps / bareRps).toFixed(3)}`;
    const cpuRatio = t.name === BARE ? '' : ` (${(bareUs / a.cpuUs!).toFixed(3)})`;
    const spread = t.name === BARE ? '' : `**${o.ratio.toFixed(3)}** (${o.lowest.toFixed(3)}–${o.highest.toFixed(3)})`;
    console.log(
      `| ${t.name} | ${a.rps.toFixed(0)} (${Math.min(...a.all!).toFixed(0)}–${Math.max(...a.all!).toFixed(0)}) ` +
        `| ${ratio} | ${a.cpuUs!.toFixed(2)}${cpuRatio} | ${o.cpuUs.toFixed(2)} | ${spread} |`,
    );
  }
}

runBench(main);
