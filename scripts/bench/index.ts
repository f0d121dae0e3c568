// npm run bench [-- --duration 5 --warmup 3 --rounds 3 --connections 32 --quick --out FILE]
// Measures the gateway against the physical limit on this machine, in one run, as ratios:
// (a) the gateway on the embedded store, (b) the gateway on Redis when one answers on 6379,
// (c) nginx serving the same build output as static files when nginx is installed, (d) a bare
// node:http server answering the same bytes from memory; then the requests clients really send (the
// br-encoded 200 and the 304) against a bare server and nginx replaying the gateway's bytes, and the
// gateway's idle memory and start-up (real-request.ts, footprint.ts). Each server gets CPU 0 and the load
// generator CPU 1 (taskset), so each side has one core whatever the other does. The targets of a
// scenario run in alternated rounds while all of them are up, and each figure is the median of its
// rounds: a shared machine drifts within minutes, and a ratio of two single runs taken one after
// the other carries that drift. Adds a dated section to docs/performance.md (docs/performance.md: Method).
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readPointer } from '../../build/publish.ts';
import { readBuild } from '../../build/site-format.ts';
import {
  CONNECTIONS,
  DURATION,
  HAS_NGINX,
  HAS_TASKSET,
  HAS_WRK,
  HEALTH,
  NGINX_MISSING,
  opt,
  RECORD,
  REGISTER,
  ROUNDS,
  runBench,
  WARMUP,
  work,
} from './context.ts';
import { seedAccounts, unknownKeys } from './data.ts';
import { footprint } from './footprint.ts';
import { drive, type Load, latencyAt, median, probe, rounds, rssOf, type Target } from './load.ts';
import { realRequests } from './real-request.ts';
import { publishRealSite } from './real-site.ts';
import { type Row, reportOf, writeReport } from './report.ts';
import { productionReport } from './report-production.ts';
import { bundleForBench, type Running, reachable, startBare, startGateway, startNginx } from './servers.ts';

async function main() {
  const started = new Date();
  const siteDir = publishRealSite();
  const pointer = readPointer(siteDir)!;
  const { manifest } = readBuild((path) => readFileSync(join(siteDir, path), 'utf8'), pointer);
  bundleForBench();
  const recordEntry = manifest.bodies[manifest.routes[RECORD]!]!;
  const rows: Row[] = [];
  const log = (r: Row) => {
    rows.push(r);
    const x = r.result;
    const figures = x
      ? `${x.rps.toFixed(0).padStart(7)} req/s  p50 ${x.p50.toFixed(2)} ms  p99 ${x.p99.toFixed(2)} ms` +
        `${x.cpuUs ? `  CPU ${x.cpuUs.toFixed(1)} µs/req` : ''}${x.errors ? `  errors ${x.errors}` : ''}`
      : r.note;
    const rss = r.rss ? `  peak RSS ${r.rss.toFixed(0)} MiB` : '';
    console.log(`${r.scenario.padEnd(28)} ${r.target.padEnd(16)} ${figures}${rss}`);
  };
  console.log(
    `load generator: ${HAS_WRK ? 'wrk' : 'autocannon'}, ${CONNECTIONS} connections, ` +
      `${WARMUP} s warm-up + ${DURATION} s, ${ROUNDS} alternated round(s) per scenario (medians)` +
      `${HAS_TASKSET ? ', server on CPU 0, load on CPU 1' : ''}`,
  );

  // (a) embedded, limits out of the way for the throughput scenarios; 1,000 accounts in turn
  const stateA = join(work, 'state-a');
  const keys1k = seedAccounts(stateA, 1_000);
  const a = await startGateway({
    STATE_DIR: stateA,
    SITE_DIR: siteDir,
    RATE_LIMIT_PER_HOUR: '1000000000',
    REGISTER_LIMIT_PER_HOUR: '1000000000',
  });
  const firstKey = readFileSync(keys1k, 'utf8').split('\n')[0]!;
  const okProbe = await probe(a.url, RECORD, { 'x-api-key': firstKey });
  if (okProbe.status !== 200) throw new Error(`the gateway answered ${okProbe.status}`);
  const etag = okProbe.headers.find(([k]) => k.toLowerCase() === 'etag')![1];
  const getLoad: Load = { path: RECORD, keysFile: keys1k };
  const revalidate: Load = { path: RECORD, keysFile: keys1k, headers: { 'If-None-Match': etag } };
  const notModifiedProbe = await probe(a.url, RECORD, { 'x-api-key': firstKey, 'if-none-match': etag });
  if (notModifiedProbe.status !== 304) throw new Error(`expected 304, got ${notModifiedProbe.status}`);
  const unknown: Load = { path: RECORD, keysFile: unknownKeys(10_000) };
  const unknownProbe = await probe(a.url, RECORD, {
    'x-api-key': readFileSync(unknown.keysFile!, 'utf8').split('\n')[0]!,
  });
  const regProbe = await probe(
    a.url,
    REGISTER,
    { 'content-type': 'application/json' },
    'POST',
    '{"email":"probe@example.com"}',
  );

  // (b) Redis mode, one instance, up beside the embedded gateway: its GET runs in the same rounds
  const extraGet: Target[] = [];
  let redis: { gateway: Running; prefix: string } | null = null;
  if (await reachable(6379)) {
    const prefix = `gg:bench:${process.pid}:`;
    const r = await startGateway({
      STATE_DIR: join(work, 'state-r'),
      SITE_DIR: siteDir,
      REDIS_URL: 'redis://127.0.0.1:6379',
      REDIS_KEY_PREFIX: prefix,
      RATE_LIMIT_PER_HOUR: '1000000000',
      REGISTER_LIMIT_PER_HOUR: '1000000000',
    });
    redis = { gateway: r, prefix };
    for (let i = 0; i < 50 && (await probe(r.url, HEALTH, {})).body.toString().includes('unavailable'); i++)
      await new Promise((res) => setTimeout(res, 100));
    const redisKeys: string[] = [];
    for (let i = 0; i < 1_000; i++) {
      const res = await probe(
        r.url,
        REGISTER,
        { 'content-type': 'application/json' },
        'POST',
        JSON.stringify({ email: `redis-${i}@example.com` }),
      );
      redisKeys.push(JSON.parse(res.body.toString()).api_key);
    }
    const file = join(work, 'redis-keys.txt');
    writeFileSync(file, `${redisKeys.join('\n')}\n`);
    extraGet.push({ name: 'gateway, Redis', url: r.url, pid: r.pid, load: { path: RECORD, keysFile: file } });
  }

  // (c) nginx, the ceiling for static bytes, beside them for the GET and the 304
  const extra304: Target[] = [];
  const nginx = HAS_NGINX ? await startNginx(join(siteDir, pointer.dir)) : null;
  if (nginx) {
    const file = `/${recordEntry.identity.file}`;
    const nEtag = (await probe(nginx.url, file, {})).headers.find(([k]) => k.toLowerCase() === 'etag')?.[1] ?? '';
    extraGet.push({ name: 'nginx (1 worker)', url: nginx.url, load: { path: file } });
    extra304.push({
      name: 'nginx (1 worker)',
      url: nginx.url,
      load: { path: file, headers: { 'If-None-Match': nEtag } },
    });
  }

  // (d) bare node:http answering the scenario's bytes, up beside the gateway while its rounds run
  const scenario = async (
    name: string,
    gateway: Running,
    sample: Awaited<ReturnType<typeof probe>>,
    load: Load,
    extra: Target[] = [],
  ) => {
    const bare = await startBare(sample.status, sample.headers, sample.body);
    const targets: Target[] = [
      { name: 'gateway', url: gateway.url, pid: gateway.pid, load },
      { name: 'bare node:http', url: bare.url, pid: bare.pid, load },
      ...extra,
    ];
    const results = await rounds(targets);
    await bare.stop();
    for (const t of targets)
      log({
        scenario: name,
        target: t.name,
        result: results.get(t.name)!,
        rss: t.name.startsWith('gateway') ? rssOf(t.pid!) : undefined,
      });
    return results.get('gateway')!;
  };
  const getA = await scenario('authorised GET (24 KB)', a, okProbe, getLoad, extraGet);
  if (redis) {
    await redis.gateway.stop();
    spawnSync('sh', ['-c', `redis-cli --scan --pattern '${redis.prefix}*' | xargs -r redis-cli del > /dev/null`]);
  } else {
    log({
      scenario: 'authorised GET (24 KB)',
      target: 'gateway, Redis',
      result: null,
      note: 'no Redis on 127.0.0.1:6379',
    });
  }
  if (!nginx)
    log({
      scenario: 'authorised GET (24 KB)',
      target: 'nginx',
      result: null,
      note: NGINX_MISSING,
    });

  // p99 at half the gateway's maximum, and the paced client's own floor: the bare server at the
  // same rate, in alternated rounds as well (a single run's p99 moved between 1.6 and 8.9 ms)
  const halfRate = getA.rps / 2;
  const bareHalf = await startBare(200, okProbe.headers, okProbe.body);
  const halfRuns: { gateway: number[]; bare: number[] } = { gateway: [], bare: [] };
  for (let r = 0; r < ROUNDS; r++) {
    const order: ['gateway' | 'bare', string][] = [
      ['gateway', a.url],
      ['bare', bareHalf.url],
    ];
    if (r % 2 === 1) order.reverse();
    for (const [name, url] of order) halfRuns[name].push(await latencyAt(url, getLoad, halfRate, DURATION));
  }
  await bareHalf.stop();
  const p99Half = median(halfRuns.gateway);
  const p99HalfBare = median(halfRuns.bare);
  log({
    scenario: 'authorised GET at half max',
    target: 'gateway',
    result: { rps: halfRate, p50: NaN, p99: p99Half, errors: 0 },
    note: '',
  });

  await scenario('304 revalidation', a, { ...notModifiedProbe, body: Buffer.alloc(0) }, revalidate, extra304);
  await nginx?.stop();
  const real = await realRequests(a, keys1k, RECORD);
  await scenario('401 flood (unknown keys)', a, unknownProbe, unknown);
  await scenario('registration burst', a, regProbe, { path: REGISTER, registrations: true });
  await a.stop();

  // past the limit: one account that used its hour
  const stateB = join(work, 'state-b');
  const limited = readFileSync(seedAccounts(stateB, 1), 'utf8').trim();
  const b = await startGateway({ STATE_DIR: stateB, SITE_DIR: siteDir, RATE_LIMIT_PER_HOUR: '1' });
  await probe(b.url, RECORD, { 'x-api-key': limited });
  const tooMany = await probe(b.url, RECORD, { 'x-api-key': limited });
  if (tooMany.status !== 429) throw new Error(`expected 429, got ${tooMany.status}`);
  await scenario('429 flood (past the limit)', b, tooMany, { path: RECORD, headers: { 'X-API-Key': limited } });
  await b.stop();

  // scale: 1,000 against 100,000 registered accounts, every key used in turn, both up in the same rounds
  const scaled: { accounts: number; gateway: Running; keysFile: string; idleRss: number }[] = [];
  for (const count of [1_000, 100_000]) {
    const state = join(work, `state-${count}`);
    const keysFile = seedAccounts(state, count);
    const gateway = await startGateway({ STATE_DIR: state, SITE_DIR: siteDir, RATE_LIMIT_PER_HOUR: '1000000000' });
    scaled.push({ accounts: count, gateway, keysFile, idleRss: rssOf(gateway.pid) });
    // long enough to verify every key once (about 5,000 a second), as a running service has
    await drive(gateway.url, { path: RECORD, keysFile }, Math.ceil(count / 5_000));
  }
  const scaleResults = await rounds(
    scaled.map((s) => ({
      name: String(s.accounts),
      url: s.gateway.url,
      pid: s.gateway.pid,
      load: { path: RECORD, keysFile: s.keysFile },
    })),
  );
  const scale = scaled.map((s) => ({
    accounts: s.accounts,
    result: scaleResults.get(String(s.accounts))!,
    startupMs: s.gateway.startupMs,
    rss: rssOf(s.gateway.pid),
    idleRss: s.idleRss,
  }));
  for (const s of scale)
    log({
      scenario: `GET, ${s.accounts.toLocaleString('en')} accounts`,
      target: 'gateway',
      result: s.result,
      rss: s.rss,
    });
  for (const s of scaled) await s.gateway.stop();
  const idle = await footprint(siteDir);
  const report = reportOf({ started, rows, halfRate, halfRuns, p99Half, p99HalfBare, scale });
  writeReport(resolve(opt.out!), `${report}\n${productionReport(idle, real)}`);
  console.log(`\nwrote ${opt.out}`);
}

runBench(main);
