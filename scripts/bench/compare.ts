// bench:compare's work (compare-cli.ts is its command line): a change judged against the code
// before it, in one run, the method docs/performance.md gives ("Method"). The bundle of a git ref
// (checkout.ts) and of the working tree, each serving the real dataset as its own build publishes
// it, run side by side as `npm start` runs them, pinned on CPU 0 with a bare node:http server that
// replays the working tree's bytes, and a second gateway of the working tree, the control whose
// difference from the first is the run's own noise (verdict.ts); wrk on CPU 1. For the br-encoded
// 200, the 304 and the identity 200 (real-request.ts), measured both ways the production bench
// measures: in turn (each server alone on CPU 0, so each is quiet while the others are loaded, as
// a real server is between bursts) and all loaded at once (load.ts, together). Each round gives
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
const CONTROL = 'after, again';

interface Mode {
  /** Each side's speed relative to bare, the median of the rounds. */
  before: number;
  after: number;
  /** after ÷ before, round by round, and judged against the control's rounds (after, again ÷ after). */
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

/** Starts a side's gateway on 1,000 seeded accounts and captures the three requests from it. */
async function startSide(b: Bench, name: string, siteDir: string, checkout?: RefCheckout) {
  const state = join(b.work, `state-${name}`);
  const keysFile = seedAccounts(state, 1_000);
  const env = { STATE_DIR: state, SITE_DIR: siteDir, RATE_LIMIT_PER_HOUR: '1000000000' };
  const gateway = await startGateway(b, env, 'bundle', checkout);
  return { gateway, loads: await captureRealLoads(gateway, keysFile, RECORD) };
}

/** The report of `ref` (before) against the working tree (after), as Markdown ending in the verdict. */
export async function compareWith(b: Bench, ref: string): Promise<string> {
  // taken before anything runs: the commit named is the one whose working tree is bundled
  const header = runHeader(b);
  const loadAtStart = loadavg()[0]!;
  const old = checkoutRef(b, ref);
  const before = await startSide(b, BEFORE, old.siteDir, old);
  const siteDir = publishRealSite(b);
  const after = await startSide(b, AFTER, siteDir);
  const again = await startSide(b, 'control', siteDir);
  const compared: Compared[] = [];
  for (const [i, [name, sample, load]] of after.loads.entries()) {
    const [, beforeSample, beforeLoad] = before.loads[i] as RealLoad;
    const [, , againLoad] = again.loads[i] as RealLoad;
    const bare = await startBare(b, sample.status, sample.headers, sample.body);
    const targets: Target[] = [
      { name: BEFORE, url: before.gateway.url, pid: before.gateway.pid, load: beforeLoad },
      { name: AFTER, url: after.gateway.url, pid: after.gateway.pid, load },
      { name: CONTROL, url: again.gateway.url, pid: again.gateway.pid, load: againLoad },
      { name: BARE, url: bare.url, pid: bare.pid, load },
    ];
    const inTurn = await rounds(b, targets);
    const atOnce = await together(b, targets, b.rounds);
    await bare.stop();
    const c: Compared = {
      name,
      bytes: { before: beforeSample.body.length, after: sample.body.length },
      inTurn: modeOf((n) => inTurn.get(n)!.cpuEach!),
      atOnce: modeOf((n) => atOnce.get(n)!.each),
    };
    compared.push(c);
    console.error(
      `${name.padEnd(24)} after ÷ before: in turn ${c.inTurn.judged.median.toFixed(3)} (${c.inTurn.judged.verdict}), ` +
        `at once ${c.atOnce.judged.median.toFixed(3)} (${c.atOnce.judged.verdict})`,
    );
  }
  await before.gateway.stop();
  await after.gateway.stop();
  await again.gateway.stop();
  return report(b, header, old, compared, [loadAtStart, loadavg()[0]!]);
}

const f3 = (x: number) => x.toFixed(3);

function report(b: Bench, header: string, old: RefCheckout, compared: Compared[], load: number[]): string {
  const lines = [
    header,
    '',
    `Before: ${old.ref} (${old.commit}); after: the working tree. Both bundles run as npm start runs them, ` +
      `each on the real dataset as its own build publishes it, with a bare node:http server replaying the ` +
      `working tree's bytes, and a second gateway of the working tree as the control. In turn: ${b.rounds} ` +
      `rounds, each server alone on CPU 0; at once: ${b.rounds} rounds of the four loaded together. Per ` +
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
