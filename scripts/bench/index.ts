// npm run bench [-- --duration 5 --warmup 3 --rounds 3 --at-once-rounds 8 --connections 32 --quick --out FILE]
// Measures the gateway against the physical limit on this machine, in one run, as ratios:
// (a) the gateway on the embedded store, (b) the gateway on a Redis of the run's own,
// (c) nginx serving the same build output as static files when nginx is installed, (d) a bare
// node:http server answering the same bytes from memory; then the production part (production.ts).
// A scenario's targets run in alternated rounds while all of them are up, each figure the median of
// its rounds (docs/performance.md, Method). Progress goes to stderr; the report (Markdown) to
// stdout, and to FILE with --out.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { livePointer } from '../../build/publish/publish.ts';
import { readBuild } from '../../build/site-format.ts';
import { nginxBeside, redisBeside, register, UNLIMITED } from './beside.ts';
import { type Bench, NGINX_MISSING, RECORD, REGISTER, runBench } from './context.ts';
import { seedAccounts, unknownKeys } from './data.ts';
import { footprint } from './footprint.ts';
import { drive, type Load, latencyAt, median, probe, rounds, rssOf, type Target } from './load.ts';
import { realRequests } from './real-request.ts';
import { publishRealSite } from './real-site.ts';
import { type Row, reportOf, runHeader } from './report.ts';
import { productionReport } from './report-production.ts';
import { type Running, startBare, startGateway } from './servers.ts';

type Log = (r: Row) => void;
type Sample = Awaited<ReturnType<typeof probe>>;

/** Each row kept for the report and said on stderr as it comes. */
function rowLogger(rows: Row[]): Log {
  return (r) => {
    rows.push(r);
    const x = r.result;
    const figures = x
      ? `${x.rps.toFixed(0).padStart(7)} req/s  p50 ${x.p50.toFixed(2)} ms  p99 ${x.p99.toFixed(2)} ms` +
        `${x.cpuUs ? `  CPU ${x.cpuUs.toFixed(1)} µs/req` : ''}${x.errors ? `  errors ${x.errors}` : ''}`
      : r.note;
    const rss = r.rss ? `  peak RSS ${r.rss.toFixed(0)} MiB` : '';
    console.error(`${r.scenario.padEnd(28)} ${r.target.padEnd(16)} ${figures}${rss}`);
  };
}

/** A scenario: the gateway, a bare node:http server answering its sample's bytes, and `extra`, in alternated rounds. */
function scenarioRunner(b: Bench, log: Log) {
  return async (name: string, gateway: Running, sample: Sample, load: Load, extra: Target[] = []) => {
    const bare = await startBare(b, sample.status, sample.headers, sample.body);
    const targets: Target[] = [
      { name: 'gateway', url: gateway.url, pid: gateway.pid, load },
      { name: 'bare node:http', url: bare.url, pid: bare.pid, load },
      ...extra,
    ];
    const results = await rounds(b, targets);
    await bare.stop();
    for (const t of targets) {
      const rss = t.name.startsWith('gateway') ? rssOf(t.pid!) : undefined;
      log({ scenario: name, target: t.name, result: results.get(t.name)!, rss });
    }
    return results.get('gateway')!;
  };
}

/**
 * p99 at half the gateway's maximum, and the paced client's own floor: the bare server at the same
 * rate, in alternated rounds as well (a single run's p99 moved widely between runs).
 */
async function halfMaxLatency(b: Bench, gatewayUrl: string, sample: Sample, load: Load, halfRate: number) {
  const bareHalf = await startBare(b, 200, sample.headers, sample.body);
  const halfRuns: { gateway: number[]; bare: number[] } = { gateway: [], bare: [] };
  for (let r = 0; r < b.rounds; r++) {
    const order: ['gateway' | 'bare', string][] = [
      ['gateway', gatewayUrl],
      ['bare', bareHalf.url],
    ];
    if (r % 2 === 1) order.reverse();
    for (const [name, url] of order) halfRuns[name].push(await latencyAt(b, url, load, halfRate));
  }
  await bareHalf.stop();
  console.error(`authorised GET at half max: p99 ${median(halfRuns.gateway).toFixed(2)} ms`);
  return halfRuns;
}

/** Past the limit: one account that used its hour. */
async function pastTheLimit(b: Bench, siteDir: string, scenario: ReturnType<typeof scenarioRunner>) {
  const stateB = join(b.work, 'state-b');
  const limited = readFileSync(seedAccounts(stateB, 1), 'utf8').trim();
  const lim = await startGateway(b, { STATE_DIR: stateB, SITE_DIR: siteDir, RATE_LIMIT_PER_HOUR: '1' });
  await probe(lim.url, RECORD, { 'x-api-key': limited });
  const tooMany = await probe(lim.url, RECORD, { 'x-api-key': limited });
  if (tooMany.status !== 429) throw new Error(`expected 429, got ${tooMany.status}`);
  await scenario('429 flood (past the limit)', lim, tooMany, { path: RECORD, headers: { 'X-API-Key': limited } });
  await lim.stop();
}

/** Scale: 1,000 against 100,000 registered accounts, every key used in turn, both up in the same rounds. */
async function scaleRuns(b: Bench, siteDir: string, log: Log) {
  const scaled: { accounts: number; gateway: Running; keysFile: string; idleRss: number }[] = [];
  for (const count of [1_000, 100_000]) {
    const state = join(b.work, `state-${count}`);
    const keysFile = seedAccounts(state, count);
    const gateway = await startGateway(b, { STATE_DIR: state, SITE_DIR: siteDir, ...UNLIMITED });
    scaled.push({ accounts: count, gateway, keysFile, idleRss: rssOf(gateway.pid) });
    // long enough to verify every key once (about 5,000 a second), as a running service has
    await drive(b, gateway.url, { path: RECORD, keysFile }, Math.ceil(count / 5_000));
  }
  const scaleResults = await rounds(
    b,
    scaled.map((s) => ({ ...s.gateway, name: String(s.accounts), load: { path: RECORD, keysFile: s.keysFile } })),
  );
  const scale = scaled.map((s) => ({
    accounts: s.accounts,
    result: scaleResults.get(String(s.accounts))!,
    startupMs: s.gateway.startupMs,
    rss: rssOf(s.gateway.pid),
    idleRss: s.idleRss,
  }));
  for (const s of scale) log({ scenario: `GET, ${s.accounts.toLocaleString('en')} accounts`, target: 'gateway', ...s });
  for (const s of scaled) await s.gateway.stop();
  return scale;
}

async function main(b: Bench) {
  const siteDir = await publishRealSite(b);
  const pointer = livePointer(siteDir)!;
  const { manifest } = readBuild((path) => readFileSync(join(siteDir, path), 'utf8'), pointer);
  const rows: Row[] = [];
  const log = rowLogger(rows);
  const scenario = scenarioRunner(b, log);
  const header = runHeader(b);
  console.error(header);

  // (a) embedded, limits out of the way for the throughput scenarios; 1,000 accounts in turn
  const stateA = join(b.work, 'state-a');
  const keys1k = seedAccounts(stateA, 1_000);
  const a = await startGateway(b, { STATE_DIR: stateA, SITE_DIR: siteDir, ...UNLIMITED });
  const firstKey = readFileSync(keys1k, 'utf8').split('\n')[0]!;
  const okProbe = await probe(a.url, RECORD, { 'x-api-key': firstKey });
  if (okProbe.status !== 200) throw new Error(`the gateway answered ${okProbe.status}`);
  const etag = okProbe.headers.find(([k]) => k.toLowerCase() === 'etag')![1];
  const getLoad: Load = { path: RECORD, keysFile: keys1k };
  const revalidate: Load = { path: RECORD, keysFile: keys1k, headers: { 'If-None-Match': etag } };
  const notModifiedProbe = await probe(a.url, RECORD, { 'x-api-key': firstKey, 'if-none-match': etag });
  if (notModifiedProbe.status !== 304) throw new Error(`expected 304, got ${notModifiedProbe.status}`);
  const unknown: Load = { path: RECORD, keysFile: unknownKeys(b.work, 10_000) };
  const unknownProbe = await probe(a.url, RECORD, {
    'x-api-key': readFileSync(unknown.keysFile!, 'utf8').split('\n')[0]!,
  });
  const regProbe = await register(a.url, 'probe@example.com');

  // (b) Redis mode and (c) nginx, up beside the embedded gateway: their GET runs in the same rounds
  const redis = await redisBeside(b, siteDir);
  const nginx = await nginxBeside(b, siteDir, pointer, manifest);
  const extraGet = [redis?.target, nginx?.get].filter((t) => t !== undefined);

  // (d) bare node:http answering the scenario's bytes, up beside the gateway while its rounds run
  const getA = await scenario('authorised GET (24 KB)', a, okProbe, getLoad, extraGet);
  await redis?.stop();
  if (!redis)
    log({ scenario: 'authorised GET (24 KB)', target: 'Redis', result: null, note: 'redis-server is not installed' });
  if (!nginx) log({ scenario: 'authorised GET (24 KB)', target: 'nginx', result: null, note: NGINX_MISSING });
  const halfRate = getA.rps / 2;
  const halfRuns = await halfMaxLatency(b, a.url, okProbe, getLoad, halfRate);

  const revalidated = { ...notModifiedProbe, body: Buffer.alloc(0) };
  await scenario('304 revalidation', a, revalidated, revalidate, nginx ? [nginx.notModified] : []);
  await nginx?.stop();
  const real = await realRequests(b, a, keys1k, RECORD);
  await scenario('401 flood (unknown keys)', a, unknownProbe, unknown);
  await scenario('registration burst', a, regProbe, { path: REGISTER, registrations: true });
  await a.stop();
  await pastTheLimit(b, siteDir, scenario);
  const scale = await scaleRuns(b, siteDir, log);
  const idle = await footprint(b, siteDir);
  return [header, reportOf({ rows, halfRate, halfRuns, scale }), productionReport(b, idle, real)].join('\n\n');
}

runBench(process.argv.slice(2), main, {
  help: `Measures the gateway against what this machine can do, as ratios: on the embedded store, on Redis
of the run's own when installed, nginx serving the same files when installed, and a bare node:http server
answering the same bytes; then the production part (npm run bench:production). Progress goes to
stderr, the report (Markdown) to stdout (docs/performance.md, Method).`,
});
