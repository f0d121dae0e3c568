// npm run bench:replicas [-- --rounds N --quick --out FILE]
// What REDIS_MIN_REPLICAS costs a registration (docs/performance.md, "Redis in production"): a
// primary and a replica of this run's own (append-only files, appendfsync always, on the servers'
// CPU 0 with the gateway), and registrations one after another on one keep-alive connection from
// this process (CPU 1), with REDIS_MIN_REPLICAS 0 and 1 in alternated rounds. Prints the medians
// and 95th percentiles of each request's time, in Markdown.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { type Bench, pin, REGISTER, runBench } from './context.ts';
import { median } from './load.ts';
import { publishRealSite } from './real-site.ts';
import { reachable, startGateway } from './servers.ts';

const PRIMARY = 6391;
const REPLICA = 6392;

/** A redis-server on CPU 0 with its own folder; resolves once it answers. */
async function startRedis(b: Bench, port: number, extra: string[]): Promise<ChildProcess> {
  const dir = join(b.work, `redis-${port}`);
  mkdirSync(dir, { recursive: true });
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'yes'];
  const [cmd, ...rest] = pin(0, ['redis-server', ...args, '--appendfsync', 'always', ...extra]);
  const child = spawn(cmd!, rest, { stdio: 'ignore' });
  b.children.push(child);
  for (let i = 0; i < 200 && !(await reachable(port)); i++) await new Promise((r) => setTimeout(r, 25));
  if (!(await reachable(port))) throw new Error(`redis-server on ${port} did not start (is one already there?)`);
  return child;
}

/** One registration's time in milliseconds; its answer must be a 201. */
function register(agent: Agent, base: string, email: string): Promise<number> {
  const body = JSON.stringify({ email });
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      `${base}${REGISTER}`,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': body.length } },
      (res) => {
        res.resume();
        res.on('end', () =>
          res.statusCode === 201 ? resolve(performance.now() - t0) : reject(new Error(`answered ${res.statusCode}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))]!;

async function main(b: Bench): Promise<string> {
  await startRedis(b, PRIMARY, []);
  await startRedis(b, REPLICA, ['--replicaof', '127.0.0.1', String(PRIMARY)]);
  const n = b.duration * 100;
  const times: Record<'0' | '1', number[][]> = { '0': [], '1': [] };
  let emails = 0;
  for (let round = 0; round < b.rounds; round++) {
    for (const replicas of ['0', '1'] as const) {
      const gateway = await startGateway(b, {
        SITE_DIR: await publishRealSite(b),
        REDIS_URL: `redis://127.0.0.1:${PRIMARY}`,
        REDIS_KEY_PREFIX: `bench:${process.pid}:`,
        REDIS_MIN_REPLICAS: replicas,
        REGISTER_LIMIT_PER_HOUR: '1000000000',
      });
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        // one address a registration: five keys an account at most
        for (let i = 0; i < 50; i++) await register(agent, gateway.url, `warm-${emails++}@example.com`);
        const run: number[] = [];
        for (let i = 0; i < n; i++) run.push(await register(agent, gateway.url, `bench-${emails++}@example.com`));
        times[replicas].push(run);
      } finally {
        agent.destroy();
        await gateway.stop();
      }
    }
  }
  const row = (replicas: '0' | '1') => {
    const medians = times[replicas].map((r) => median(r));
    const p95s = times[replicas].map((r) => quantile(r, 0.95));
    return { median: median(medians), p95: median(p95s) };
  };
  const [none, one] = [row('0'), row('1')];
  return [
    `# ${b.command}`,
    '',
    `Registrations one after another, ${n} a round after 50 to warm, ${b.rounds} round(s) of each setting ` +
      'alternated; a primary and a replica on 127.0.0.1, appendfsync always. Medians of the rounds.',
    '',
    '| REDIS_MIN_REPLICAS | median | 95th percentile |',
    '|---|---|---|',
    `| 0 | ${none.median.toFixed(2)} ms | ${none.p95.toFixed(2)} ms |`,
    `| 1 | ${one.median.toFixed(2)} ms | ${one.p95.toFixed(2)} ms |`,
    '',
    `REDIS_MIN_REPLICAS=1 ÷ 0: median ${(one.median / none.median).toFixed(2)}, ` +
      `95th percentile ${(one.p95 / none.p95).toFixed(2)}.`,
  ].join('\n');
}

await runBench(process.argv.slice(2), main, {
  help: `
What REDIS_MIN_REPLICAS costs a registration: a primary and a replica of the run's own on ports ${PRIMARY}
and ${REPLICA}, a gateway with REDIS_MIN_REPLICAS 0 and 1 in alternated rounds, registrations one
after another (docs/performance.md, "Redis in production"). Needs redis-server.`,
});
