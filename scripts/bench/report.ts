// The report of a run as Markdown a person can paste into docs/performance.md: a line naming the
// command, the commit and the machine, then the tables. Which figures are published is that person's
// choice (docs/performance.md, Method); no bench writes there itself.
import { spawnSync } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import type { Bench } from './context.ts';
import { median, type Result } from './load.ts';

/** How a run was made: the command, the code, the machine, the pinning and the load. */
export function runHeader(b: Bench): string {
  const run = (cmd: string, ...args: string[]) => spawnSync(cmd, args, { encoding: 'utf8' });
  const commit = run('git', 'describe', '--always', '--dirty').stdout.trim();
  const nginx = b.hasNginx ? `, ${run('nginx', '-v').stderr.trim().replace('nginx version: ', '')}` : '';
  return (
    `\`${b.command}\` at ${commit}, ${new Date().toISOString().slice(0, 10)}. Machine: ${cpus().length} × ` +
    `${cpus()[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}` +
    `${nginx}. Servers on CPU 0, load generator (wrk, 1 thread, ${b.connections} connections) on CPU 1 ` +
    `(taskset); ${b.rounds} alternated round(s) of ${b.warmup} s warm-up + ${b.duration} s, ` +
    'medians.'
  );
}

export interface Row {
  scenario: string;
  target: string;
  result: Result | null;
  rss?: number;
  note?: string;
}

const SCENARIOS = [
  'authorised GET (24 KB)',
  '304 revalidation',
  '401 flood (unknown keys)',
  '429 flood (past the limit)',
  'registration burst',
] as const;

interface RunFigures {
  rows: Row[];
  halfRate: number;
  halfRuns: { gateway: number[]; bare: number[] };
  scale: { accounts: number; result: Result; startupMs: number; rss: number; idleRss: number }[];
}

const fixed = (xs: number[], digits: number) => xs.map((x) => x.toFixed(digits)).join(', ');

/** npm run bench's own tables: the scenarios, the p99 at half the maximum, and the accounts' scale. */
export function reportOf({ rows, halfRate, halfRuns, scale }: RunFigures): string {
  const find = (scenario: string, target: string) =>
    rows.find((r) => r.scenario === scenario && r.target === target)?.result ?? null;
  const ratio = (x: Result | null, y: Result | null) => (x && y?.rps ? (x.rps / y.rps).toFixed(2) : '—');
  const fmt = (x: Result | null) =>
    x
      ? `${x.rps.toFixed(0)} | ${x.p50.toFixed(2)} | ${x.p99.toFixed(2)} | ${x.cpuUs ? x.cpuUs.toFixed(1) : '—'}`
      : '— | — | — | —';
  const each = (x: Result | null) => fixed(x?.all ?? [], 0);
  const cpuRatio = (g: Result | null, t: Result | null) =>
    g?.cpuUs && t?.cpuUs ? (t.cpuUs / g.cpuUs).toFixed(2) : '—';
  const lines = [
    '| scenario | target | req/s | p50 ms | p99 ms | CPU µs/req | gateway ÷ target (req/s) ' +
      '| target ÷ gateway (CPU µs/req) | req/s of each round |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const s of SCENARIOS) {
    const g = find(s, 'gateway');
    lines.push(`| ${s} | gateway (embedded) | ${fmt(g)} | | | ${each(g)} |`);
    for (const t of ['bare node:http', 'nginx (1 worker)', 'gateway, Redis']) {
      const x = find(s, t);
      const vs = t === 'gateway, Redis' ? `Redis ÷ embedded: ${ratio(x, g)}` : ratio(g, x);
      const cpu = t === 'bare node:http' ? cpuRatio(g, x) : '';
      if (x) lines.push(`| ${s} | ${t} | ${fmt(x)} | ${vs} | ${cpu} | ${each(x)} |`);
    }
  }
  for (const r of rows) if (r.note) lines.push('', `${r.target}: ${r.note}.`);
  const peak = Math.max(...rows.filter((r) => r.rss).map((r) => r.rss!));
  lines.push(
    '',
    `Authorised GET at half the gateway's maximum rate (${halfRate.toFixed(0)} req/s, paced-load.ts, latency ` +
      `from each request's scheduled time): p99 ${median(halfRuns.gateway).toFixed(2)} ms (rounds: ` +
      `${fixed(halfRuns.gateway, 2)}); bare server at the same rate: p99 ${median(halfRuns.bare).toFixed(2)} ms ` +
      `(${fixed(halfRuns.bare, 2)}). Peak RSS of a gateway across the scenarios: ${peak.toFixed(0)} MiB.`,
    '',
    '| registered accounts | GET req/s | p99 ms | startup ms | RSS idle MiB | peak RSS MiB | req/s of each round |',
    '|---|---|---|---|---|---|---|',
    ...scale.map(
      (s) =>
        `| ${s.accounts.toLocaleString('en')} | ${s.result.rps.toFixed(0)} | ${s.result.p99.toFixed(2)} ` +
        `| ${s.startupMs.toFixed(0)} | ${s.idleRss.toFixed(0)} | ${s.rss.toFixed(0)} | ${each(s.result)} |`,
    ),
    '',
    `100,000 ÷ 1,000 accounts: ${ratio(scale[1]!.result, scale[0]!.result)}.`,
  );
  return lines.join('\n');
}
