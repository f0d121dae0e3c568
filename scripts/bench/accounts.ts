// npm run bench:accounts [-- --quick --out FILE]
// Nothing learned from timing (docs/performance.md, "Account endpoints: nothing learned from
// timing"): each account endpoint asked about something that exists and something that does not,
// and a probe sent right behind each (back to back, one keep-alive connection), then the same pairs
// with a pause between the two requests. Medians of each request's own time and of the probe's, on
// the embedded store and on Redis (a redis-server of this run's own, own-redis.ts).
// The gateway on CPU 0 (as npm start runs it), this client on CPU 1. Prints Markdown.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { RECOVERY_LINK_PARAM, ROUTES } from '../../build/site-format.ts';
import { generateRecoveryToken } from '../../gateway/keys.ts';
import { OUTBOX_DIR } from '../../gateway/mail.ts';
import { type Bench, runBench } from './context.ts';
import { median } from './load.ts';
import { type OwnRedis, startOwnRedis } from './own-redis.ts';
import { publishRealSite } from './real-site.ts';
import { startGateway } from './servers.ts';

/** Between the two requests of a pair in the paused runs, and between pairs (deferred work done). */
const PAUSE_MS = 30;
const BETWEEN_PAIRS_MS = 15;
/** The goal: medians within this fraction, or this many µs. */
const GOAL_FRACTION = 0.15;
const GOAL_US = 150;

type Send = () => { path: string; body: unknown };
interface Scenario {
  name: string;
  /** What exists (an account, a used token) and what does not. */
  exists: [label: string, send: Send];
  absent: [label: string, send: Send];
  probe: Send;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A JSON POST on the one connection; resolves with its status and time in µs. */
function post(agent: Agent, base: string, s: { path: string; body: unknown }) {
  const body = Buffer.from(JSON.stringify(s.body));
  return new Promise<{ status: number; us: number }>((resolve, reject) => {
    const t0 = performance.now();
    const req = request(`${base}${s.path}`, {
      agent,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': body.length },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, us: (performance.now() - t0) * 1000 }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Addresses never used before in this run (the recovery limit is per address). */
let unique = 0;
const fresh = (what: string) => `${what}-${process.pid}-${unique++}@example.com`;

/** Accounts made through the API (the same for both stores): their e-mails, each used once. */
async function seed(agent: Agent, base: string, count: number): Promise<string[]> {
  const emails: string[] = [];
  for (let i = 0; i < count; i++) {
    const email = fresh('known');
    const r = await post(agent, base, { path: ROUTES.register.path, body: { email } });
    if (r.status !== 201) throw new Error(`seeding answered ${r.status}`);
    emails.push(email);
  }
  return emails;
}

/** Used tokens: links asked for, read from the outbox, used once; each refused as used from then on. */
async function usedTokens(agent: Agent, base: string, stateDir: string, emails: string[]): Promise<string[]> {
  for (const email of emails) await post(agent, base, { path: ROUTES.recover.path, body: { email } });
  await sleep(500);
  const dir = join(stateDir, OUTBOX_DIR);
  const found = new RegExp(`${RECOVERY_LINK_PARAM}=(ggr_[A-Za-z0-9_-]{32})`);
  const tokens = readdirSync(dir).map((f) => found.exec(readFileSync(join(dir, f), 'utf8'))![1]!);
  for (const token of tokens) await post(agent, base, { path: ROUTES.recoverConfirm.path, body: { token } });
  return tokens;
}

/** Each request's own time and its probe's, by what the first request asked about. */
interface Figures {
  exists: number[];
  absent: number[];
  /** The absent kind again, as a third kind: how far two medians of the same thing land (noise). */
  control: number[];
  afterExists: number[];
  afterAbsent: number[];
  afterControl: number[];
}

/** `n` pairs of each kind, the kinds' order rotating; back to back or with PAUSE_MS between. */
async function measure(agent: Agent, base: string, s: Scenario, n: number, paused: boolean): Promise<Figures> {
  const f: Figures = { exists: [], absent: [], control: [], afterExists: [], afterAbsent: [], afterControl: [] };
  const pair = async (send: Send, own: number[], behind: number[]) => {
    const first = await post(agent, base, send());
    if (paused) await sleep(PAUSE_MS);
    const probe = await post(agent, base, s.probe());
    own.push(first.us);
    behind.push(probe.us);
    await sleep(BETWEEN_PAIRS_MS);
  };
  const kinds = [
    () => pair(s.exists[1], f.exists, f.afterExists),
    () => pair(s.absent[1], f.absent, f.afterAbsent),
    () => pair(s.absent[1], f.control, f.afterControl),
  ];
  for (let i = 0; i < n; i++) for (let k = 0; k < 3; k++) await kinds[(i + k) % 3]!();
  return f;
}

const fmt = (us: number) => `${Math.round(us)} µs`;
const signed = (us: number) => `${us < 0 ? '−' : '+'}${Math.round(Math.abs(us))} µs`;
/** The median of x[i] − y[i]: requests of one cycle are neighbours in time, so a slow spell cancels. */
const paired = (x: number[], y: number[]) => median(x.map((v, i) => v - y[i]!));
/**
 * The cells: both medians and their difference, the median of the paired differences and the
 * control's (the same kind twice: what noise alone gives), and the verdict on the medians.
 */
function compare(x: number[], y: number[], control: number[]): string[] {
  const [a, b] = [median(x), median(y)];
  const diff = Math.abs(a - b);
  const ok = diff <= GOAL_US || diff <= GOAL_FRACTION * Math.min(a, b);
  const pct = ((100 * diff) / Math.min(a, b)).toFixed(1);
  const noise = Math.abs(median(control) - b);
  return [
    fmt(a),
    fmt(b),
    `${fmt(diff)} (${pct} %)`,
    fmt(noise),
    signed(paired(x, y)),
    signed(paired(control, y)),
    ok ? 'yes' : '**no**',
  ];
}

/** One store: a gateway, its accounts and tokens, every scenario both ways; the table's rows. */
async function runStore(b: Bench, store: string, env: Record<string, string>, n: number, warm: number) {
  const stateDir = join(b.work, `state-${store.replace(/\W/g, '')}`);
  const gateway = await startGateway(b, {
    STATE_DIR: stateDir,
    SITE_DIR: await publishRealSite(b),
    REGISTER_LIMIT_PER_HOUR: '1000000000',
    ...env,
  });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const base = gateway.url;
  try {
    const perRun = 2 * (n + warm); // each address used once: both ways, warm-up included
    const known = await seed(agent, base, 2 * perRun);
    const used = await usedTokens(agent, base, stateDir, await seed(agent, base, 8));
    const take = (list: string[]) => list.shift() ?? fresh('spare');
    let turn = 0;
    const recoverPool = known.slice(0, perRun);
    const registerPool = known.slice(perRun);
    const scenarios: Scenario[] = [
      {
        name: `${ROUTES.recover.path}`,
        exists: ['an account', () => ({ path: ROUTES.recover.path, body: { email: take(recoverPool) } })],
        absent: ['none', () => ({ path: ROUTES.recover.path, body: { email: fresh('unknown') } })],
        probe: () => ({ path: ROUTES.recover.path, body: { email: fresh('probe') } }),
      },
      {
        name: `${ROUTES.register.path}`,
        exists: ['existing account', () => ({ path: ROUTES.register.path, body: { email: take(registerPool) } })],
        absent: ['new account', () => ({ path: ROUTES.register.path, body: { email: fresh('new') } })],
        probe: () => ({ path: ROUTES.register.path, body: { email: fresh('probe') } }),
      },
      {
        name: `${ROUTES.recoverConfirm.path}`,
        exists: [
          'a used token',
          () => ({ path: ROUTES.recoverConfirm.path, body: { token: used[turn++ % used.length] } }),
        ],
        absent: ['unknown', () => ({ path: ROUTES.recoverConfirm.path, body: { token: generateRecoveryToken() } })],
        probe: () => ({ path: ROUTES.recoverConfirm.path, body: { token: generateRecoveryToken() } }),
      },
    ];
    const rows: string[] = [];
    for (const s of scenarios) {
      for (const paused of [false, true]) {
        await measure(agent, base, s, warm, paused);
        const f = await measure(agent, base, s, n, paused);
        const how = paused ? `${PAUSE_MS} ms apart` : 'back to back';
        const row = (what: string, x: number[], y: number[], c: number[]) =>
          rows.push(`| ${store} | ${s.name} | ${how} | ${what} | ${compare(x, y, c).join(' | ')} |`);
        row(`itself: ${s.exists[0]} / ${s.absent[0]}`, f.exists, f.absent, f.control);
        row('the probe behind it', f.afterExists, f.afterAbsent, f.afterControl);
      }
    }
    return rows;
  } finally {
    agent.destroy();
    await gateway.stop();
  }
}

async function main(b: Bench): Promise<string> {
  const n = b.rounds === 1 && b.duration === 2 ? 20 : 150; // --quick (context.ts): a smoke run
  const warm = Math.ceil(n / 5);
  const rows = [...(await runStore(b, 'embedded (SQLite)', {}, n, warm))];
  let redis: OwnRedis | null = null;
  try {
    redis = await startOwnRedis(b);
    if (!redis) throw new Error('redis-server is not installed');
    rows.push(...(await runStore(b, 'Redis', { REDIS_URL: redis.url }, n, warm)));
  } catch (err) {
    rows.push(`| Redis | not measured: ${(err as Error).message} | | | | | | | | | |`);
  } finally {
    await redis?.stop();
  }
  const commit = spawnSync('git', ['describe', '--always', '--dirty'], { encoding: 'utf8' }).stdout;
  return [
    `\`${b.command}\` at ${commit.trim()}, ${new Date().toISOString().slice(0, 10)}: gateway (bundle) on CPU 0, ` +
      `this client (node:http, one keep-alive connection) on CPU 1; ${n} pairs of each kind, medians.`,
    '',
    'Each pair is a first request and a probe behind it (back to back, or 30 ms apart). Control: how far ' +
      'the median of the "does not" kind lands from that of the same kind measured again (noise alone). ' +
      'Paired: the median of the differences within each cycle of neighbouring pairs (exists − does not; ' +
      'control − does not). Within goal: medians within 15 % or 150 µs.',
    '',
    '| store | endpoint | sent | median of | exists | does not | difference | control | paired | paired control ' +
      '| within goal |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

await runBench(process.argv.slice(2), main, {
  help: `Checks that the account endpoints give nothing away by their timing: each asked about something
that exists and something that does not, with a probe right behind, on the embedded store and on
Redis (a redis-server of the run's own) when installed (docs/performance.md). Prints Markdown to stdout.`,
});
