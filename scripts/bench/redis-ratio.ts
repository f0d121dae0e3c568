// npm run bench:redis [-- --rounds 5 --duration 5 --at-once-rounds 8 --quick --out FILE]
// The keyed GET on Redis against the same gateway on the embedded store, in one run
// (docs/performance.md, "Redis in production"): the gateways up throughout, in alternated rounds
// (load.ts, rounds) with each round's req/s, then all loaded at once (load.ts, together) with each
// round's CPU time a request, steadier on a busy machine. BENCH_BEFORE=<ref> adds a gateway of that
// ref on the same Redis (the code before a change). The Redis is this run's own (a free port, no
// persistence). The gateways are on CPU 0, as in every bench; redis-server on CPU 1 beside the load
// generator, standing for the other host it is in production, so the gateway has the same core to
// itself in both modes.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { register, UNLIMITED } from './beside.ts';
import { checkoutRef, type RefCheckout } from './checkout.ts';
import { type Bench, HEALTH, pin, RECORD, runBench } from './context.ts';
import { seedAccounts } from './data.ts';
import { median, probe, rounds, type Target, together } from './load.ts';
import { startOwnRedis } from './own-redis.ts';
import { publishRealSite } from './real-site.ts';
import { reachable, startGateway } from './servers.ts';

const KEYS = 1_000;

/** utime + stime of a process in seconds (/proc/PID/stat, clock ticks of 10 ms). */
const cpuSeconds = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};

/** A gateway on this run's Redis under its own prefix, with KEYS keys registered through it. */
async function gatewayOnRedis(b: Bench, redisUrl: string, name: string, siteDir: string, checkout?: RefCheckout) {
  const env = { SITE_DIR: siteDir, REDIS_URL: redisUrl, REDIS_KEY_PREFIX: `bench-${name}:`, ...UNLIMITED };
  const g = await startGateway(b, { STATE_DIR: join(b.work, `state-${name}`), ...env }, 'bundle', checkout);
  for (let i = 0; i < 50 && (await probe(g.url, HEALTH, {})).status !== 200; i++)
    await new Promise((r) => setTimeout(r, 100));
  const keys: string[] = [];
  for (let i = 0; i < KEYS; i++)
    keys.push(JSON.parse((await register(g.url, `${name}-${i}@example.com`)).body.toString()).api_key);
  const file = join(b.work, `keys-${name}.txt`);
  writeFileSync(file, `${keys.join('\n')}\n`);
  return { ...g, file };
}

async function main(b: Bench): Promise<string> {
  const siteDir = await publishRealSite(b);
  const stateS = join(b.work, 'state-s');
  const sqliteKeys = seedAccounts(stateS, KEYS);
  const sqlite = await startGateway(b, { STATE_DIR: stateS, SITE_DIR: siteDir, ...UNLIMITED });
  const redis = await startOwnRedis(b, { cpu: 1 });
  if (!redis) throw new Error('bench:redis needs redis-server (apt-get install redis-server)');
  const onRedis = await gatewayOnRedis(b, redis.url, 'redis', siteDir);
  const ref = process.env.BENCH_BEFORE;
  const before = ref ? checkoutRef(b, ref) : undefined;
  const gateways: Target[] = [
    { name: 'SQLite', url: sqlite.url, pid: sqlite.pid, load: { path: RECORD, keysFile: sqliteKeys } },
    { name: 'Redis', url: onRedis.url, pid: onRedis.pid, load: { path: RECORD, keysFile: onRedis.file } },
  ];
  if (before) {
    const g = await gatewayOnRedis(b, redis.url, 'before', before.siteDir, before);
    gateways.push({
      name: `Redis at ${before.commit}`,
      url: g.url,
      pid: g.pid,
      load: { path: RECORD, keysFile: g.file },
    });
  }
  for (const t of gateways) {
    const first = readFileSync(t.load.keysFile!, 'utf8').split('\n')[0]!;
    const { status } = await probe(t.url, RECORD, { 'x-api-key': first });
    if (status !== 200) throw new Error(`a keyed GET of ${t.name} answered ${status}`);
  }
  const redisCpu0 = cpuSeconds(redis.pid);
  const results = await rounds(b, gateways);
  const redisCpu = cpuSeconds(redis.pid) - redisCpu0;
  const atOnce = await together(b, gateways, b.atOnceRounds);
  const s = results.get('SQLite')!;
  const others = gateways.slice(1).map((t) => t.name);
  const ratios = (name: string) => results.get(name)!.all!.map((x, i) => x / s.all![i]!);
  const spread = (xs: number[]) => `${median(xs).toFixed(2)} (rounds ${xs.map((x) => x.toFixed(2)).join(', ')})`;
  // each Redis round ran (warm-up and measurement) with b.warmup + b.duration seconds of load
  const redisRequests = others.reduce(
    (n, name) => n + results.get(name)!.all!.reduce((a, x) => a + x * (b.warmup + b.duration), 0),
    0,
  );
  const lines = [
    `# ${b.command}`,
    '',
    `Keyed GET ${RECORD}, ${KEYS.toLocaleString('en')} keys in turn a gateway; gateways on CPU 0, wrk and ` +
      `redis-server (this run's, on a free port, no persistence) on CPU 1. ${b.rounds} alternated round(s) of ` +
      `${b.duration} s after ${b.warmup} s of warm-up, then ${b.atOnceRounds} round(s) with all loaded at once.`,
    '',
    `| round | ${gateways.map((t) => `${t.name} req/s (CPU µs/req)`).join(' | ')} |`,
    `|---|${gateways.map(() => '---|').join('')}`,
    ...s.all!.map(
      (_, i) =>
        `| ${i + 1} | ${gateways
          .map((t) => {
            const x = results.get(t.name)!;
            return `${x.all![i]!.toFixed(0)} (${x.cpuEach![i]!.toFixed(1)})`;
          })
          .join(' | ')} |`,
    ),
    '',
    ...others.flatMap((name) => [
      `- ${name} ÷ SQLite, req/s in alternated rounds: ${spread(ratios(name))}`,
      `- ${name} ÷ SQLite, requests a CPU second of the gateway, all loaded at once: ` +
        spread(atOnce.get('SQLite')!.each.map((x, i) => x / atOnce.get(name)!.each[i]!)),
    ]),
    `- redis-server's CPU: about ${((redisCpu * 1e6) / redisRequests).toFixed(1)} µs a request ` +
      'of the alternated rounds.',
    `- Errors: ${gateways.map((t) => `${t.name} ${results.get(t.name)!.errors}`).join(', ')}.`,
  ];
  return lines.join('\n');
}

await runBench(process.argv.slice(2), main, {
  rounds: 5,
  help: `
The keyed GET on Redis against the same gateway on the embedded store, in one run: alternated rounds
(req/s), then rounds with both loaded at once (CPU time a request), each round's ratio printed. A
redis-server of the run's own on a free port (CPU 1, beside the load generator; the gateways on CPU
0). With BENCH_BEFORE=<git ref>, a gateway of that ref on the same Redis runs in the same rounds.
Needs redis-server (docs/performance.md, "Redis in production").`,
});
