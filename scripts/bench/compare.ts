// bench:compare's work (compare-cli.ts is its command line): a change judged against the code
// before it, in one run, the method docs/performance.md gives ("Method"). The bundle of a git ref
// (checkout.ts) and of the working tree, each serving the real dataset as its own build publishes
// it, run side by side as `npm start` runs them, pinned on CPU 0 with a bare node:http server that
// replays the working tree's bytes, and a second gateway of the working tree, the control whose
// difference from the first is the run's own noise (verdict.ts); wrk on CPU 1. Every gateway is
// started afresh for each round. For the br-encoded 200, the 304 and the identity 200
// (real-request.ts), measured both ways the production bench measures: in turn (each server alone
// on CPU 0, so each is quiet while the others are loaded, as a real server is between bursts) and
// all loaded at once (load.ts, together). Each round gives
// each gateway's speed relative to bare (bare's CPU time a request ÷ the gateway's) and their
// ratio, after ÷ before: above 1, the working tree is faster. Bare cancels out of that ratio within
// a round; it is there to show each side's level, the figure the page's table holds.
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { checkoutRef, type RefCheckout } from './checkout.ts';
import { type Bench, RECORD } from './context.ts';
import { seedAccounts } from './data.ts';
import { median, rounds, type Target, together } from './load.ts';
import { BARE, captureRealLoads, type RealLoad } from './real-request.ts';
import { publishRealSite } from './real-site.ts';
import { runHeader } from './report.ts';
import { startBare, startGateway } from './servers.ts';
import { type Judged, judge, NOISE_FLOOR, overall } from './verdict.ts';

const BEFORE = 'before';
const AFTER = 'after';
const CONTROL = 'control';

interface Mode {
  /** Each side's speed relative to bare, the median of the rounds. */
  before: number;
  after: number;
  /** after ÷ before, round by round, and judged against the control's rounds (control ÷ after). */
  each: number[];
  control: number[];
  judged: Judged;
}

interface Compared {
  name: string;
  bytes: { before: number; after: number };
  inTurn: Mode;
  atOnce: Mode;
}

/** Round by round CPU µs a request of each server (by name): the figures a mode is read by. */
function modeOf(cpu: (name: string) => number[]): Mode {
  const bare = cpu(BARE);
  const vsBare = (name: string) => cpu(name).map((x, i) => bare[i]! / x);
  const [b, a, again] = [vsBare(BEFORE), vsBare(AFTER), vsBare(CONTROL)];
  const each = a.map((x, i) => x / b[i]!);
  const control = again.map((x, i) => x / a[i]!);
  return { before: median(b), after: median(a), each, control, judged: judge(each, control) };
}

/**
 * A side: its gateway's store (1,000 seeded accounts) and site, and the three requests captured
 * from it once. Its gateway is started afresh for every round (start).
 */
async function prepareSide(b: Bench, name: string, siteDir: string, checkout?: RefCheckout) {
  const state = join(b.work, `state-${name}`);
  const keysFile = seedAccounts(state, 1_000);
  const env = { STATE_DIR: state, SITE_DIR: siteDir, RATE_LIMIT_PER_HOUR: '1000000000' };
  const start = () => startGateway(b, env, 'bundle', checkout);
  const first = await start();
  const loads = await captureRealLoads(first, keysFile, RECORD);
  await first.stop();
  return { name, start, loads };
}

/** The CPU µs a request of every server, per request and mode, one entry a round. */
type Rounds = Map<string, { inTurn: number[]; atOnce: number[] }>;

/**
 * One round: each side's gateway started afresh (two processes of the same code differ by a
 * little for as long as they run, so fresh processes put that difference into the rounds' spread,
 * where the verdict sees it), then for each request a bare server replaying the working tree's
 * answer, each server measured alone in turn (the order moved on by the round) and all at once.
 */
async function round(b: Bench, r: number, sides: Awaited<ReturnType<typeof prepareSide>>[], figures: Rounds[]) {
  const gateways = await Promise.all(sides.map((s) => s.start()));
  const once = { ...b, rounds: 1 };
  for (const [i, [, sample, load]] of sides[1]!.loads.entries()) {
    const bare = await startBare(b, sample.status, sample.headers, sample.body);
    const targets: Target[] = sides.map((s, j) => ({
      name: s.name,
      url: gateways[j]!.url,
      pid: gateways[j]!.pid,
      load: s.loads[i]![2],
    }));
    targets.push({ name: BARE, url: bare.url, pid: bare.pid, load });
    const turn = [...targets.slice(r % targets.length), ...targets.slice(0, r % targets.length)];
    const inTurn = await rounds(once, turn);
    const atOnce = await together(b, targets, 1);
    await bare.stop();
    for (const t of targets) {
      const f = figures[i]!.get(t.name) ?? { inTurn: [], atOnce: [] };
      f.inTurn.push(inTurn.get(t.name)!.cpuEach![0]!);
      f.atOnce.push(atOnce.get(t.name)!.each[0]!);
      figures[i]!.set(t.name, f);
    }
  }
  for (const g of gateways) await g.stop();
}

/** The report of `ref` (before) against the working tree (after), as Markdown ending in the verdict. */
export async function compareWith(b: Bench, ref: string): Promise<string> {
  // taken before anything runs: the commit named is the one whose working tree is bundled
  const header = runHeader(b);
  const loadAtStart = loadavg()[0]!;
  const old = checkoutRef(b, ref);
  const siteDir = await publishRealSite(b);
  const sides = [
    await prepareSide(b, BEFORE, old.siteDir, old),
    await prepareSide(b, AFTER, siteDir),
    await prepareSide(b, CONTROL, siteDir),
  ];
  const figures: Rounds[] = sides[1]!.loads.map(() => new Map());
  for (let r = 0; r < b.rounds; r++) {
    await round(b, r, sides, figures);
    console.error(`round ${r + 1} of ${b.rounds} done`);
  }
  const compared = sides[1]!.loads.map(
    ([name, sample], i): Compared => ({
      name,
      bytes: { before: (sides[0]!.loads[i] as RealLoad)[1].body.length, after: sample.body.length },
      inTurn: modeOf((n) => figures[i]!.get(n)!.inTurn),
      atOnce: modeOf((n) => figures[i]!.get(n)!.atOnce),
    }),
  );
  for (const c of compared)
    console.error(
      `${c.name.padEnd(24)} after ÷ before: in turn ${c.inTurn.judged.median.toFixed(3)} ` +
        `(${c.inTurn.judged.verdict}), at once ${c.atOnce.judged.median.toFixed(3)} (${c.atOnce.judged.verdict})`,
    );
  return report(b, header, old, compared, [loadAtStart, loadavg()[0]!]);
}

const f3 = (x: number) => x.toFixed(3);

function report(b: Bench, header: string, old: RefCheckout, compared: Compared[], load: number[]): string {
  const lines = [
    header,
    '',
    `Before: ${old.ref} (${old.commit}); after: the working tree. Both bundles run as npm start runs them, ` +
      `each on the real dataset as its own build publishes it, with a bare node:http server replaying the ` +
      `working tree's bytes, and a second gateway of the working tree as the control, every gateway started ` +
      `afresh for each of ${b.rounds} rounds. In a round, each server alone on CPU 0 in turn, then the four ` +
      'loaded together. Per ' +
      `round, each gateway's speed relative to bare (bare's CPU time a request ÷ its own), and after ÷ ` +
      `before: above 1, the working tree is faster; the control is the working tree ÷ itself. Load average ` +
      `(1 min) at the start ${load[0]!.toFixed(2)}, at the end ${load[1]!.toFixed(2)}.`,
    ...(old.sameLock ? [] : ['', `${old.commit}'s package-lock.json differs: it ran on this checkout's packages.`]),
    '',
    '| request | mode | before ÷ bare | after ÷ bare | after ÷ before: median (quartiles) | each round ' +
      '| control (each round) | verdict |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const c of compared)
    for (const [mode, m] of [
      ['in turn', c.inTurn],
      ['at once', c.atOnce],
    ] as const)
      lines.push(
        `| ${c.name} | ${mode} | ${f3(m.before)} | ${f3(m.after)} | **${f3(m.judged.median)}** ` +
          `(${f3(m.judged.q1)}–${f3(m.judged.q3)}) | ${m.each.map(f3).join(', ')} | ` +
          `${f3(median(m.control))} (${m.control.map(f3).join(', ')}) | ${m.judged.verdict} |`,
      );
  const sizes = compared.filter((c) => c.bytes.before !== c.bytes.after);
  if (sizes.length)
    lines.push(
      '',
      `Bodies differ: ${sizes.map((c) => `${c.name} ${c.bytes.before} → ${c.bytes.after} bytes`).join(', ')}.`,
    );
  const verdict = overall(compared.flatMap((c) => [c.inTurn.judged.verdict, c.atOnce.judged.verdict]));
  lines.push(
    '',
    'A reading counts only when the middle half of its rounds lies wholly outside the middle half of the ' +
      `control's, and outside 1 ± ${NOISE_FLOOR * 100}% (scripts/bench/verdict.ts); the change is slower if any ` +
      'reading is.',
    '',
    `**Verdict: ${verdict}.**`,
  );
  return lines.join('\n');
}
