// The report's production part: idle memory and start-up (footprint.ts), and the requests clients
// really send against a bare node:http server and nginx (real-request.ts), with the goals
// (docs/performance.md) beside the figures.
import { type Bench, NGINX_MISSING } from './context.ts';
import { type Footprint, summary } from './footprint.ts';
import { atOnceRatio } from './load.ts';
import { BARE, GATEWAY, NGINX, type RealCase } from './real-request.ts';

const GOALS = { rss: 1.6, startupMs: 1_500, bare: 0.9, nginx: 0.6 };
const met = (ok: boolean) => (ok ? 'met' : '**not met**');
const each = (xs: number[], digits = 0) => xs.map((x) => x.toFixed(digits)).join(', ');

export function productionReport(b: Bench, f: Footprint, cases: RealCase[]): string {
  const [g, bare, t] = [summary(f.gateway), summary(f.bare), summary(f.tsx)];
  const lines = [
    '#### Idle memory and start-up',
    '',
    `${f.gateway.rss.length} starts of each, in turn; RSS read 2 s after the first 200 on /health.`,
    '',
    '| process | idle RSS MiB, median (each start) | start to first 200 on /health, ms (each start) |',
    '|---|---|---|',
    `| gateway | ${g.rss.toFixed(1)} (${each(f.gateway.rss, 1)}) | ` +
      `${g.startupMs.toFixed(0)} (${each(f.gateway.startupMs)}) |`,
    `| gateway from the sources through tsx (npm run dev; npm start before) | ${t.rss.toFixed(1)} ` +
      `(${each(f.tsx.rss, 1)}) | ${t.startupMs.toFixed(0)} (${each(f.tsx.startupMs)}) |`,
    `| bare node:http | ${bare.rss.toFixed(1)} (${each(f.bare.rss, 1)}) | listening: ${bare.startupMs.toFixed(0)} |`,
    '',
    `Idle RSS, gateway ÷ bare: ${(g.rss / bare.rss).toFixed(2)}× ` +
      `(goal ≤ ${GOALS.rss}×: ${met(g.rss / bare.rss <= GOALS.rss)}). ` +
      `Start-up ${g.startupMs.toFixed(0)} ms (goal ≤ ${GOALS.startupMs} ms: ${met(g.startupMs <= GOALS.startupMs)}).`,
    '',
    '#### The requests clients send',
    '',
    `Each server replays the gateway's status, headers and bytes. At once: the servers loaded together ` +
      `${b.atOnceRounds} times for ${b.duration} s, CPU time a request compared within each round (median, range).`,
    ...(b.hasNginx ? [] : ['', NGINX_MISSING]),
    '',
    '| request | server | alternated req/s (rounds) | gateway ÷ server, alternated | CPU µs a request at once ' +
      '| gateway ÷ server at once (range) | goal |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const c of cases) {
    const gr = c.alternated.get(GATEWAY)!;
    for (const [name, r] of c.alternated) {
      const us = c.atOnce.get(name)!.cpuUs.toFixed(2);
      const rounds = `${r.rps.toFixed(0)} (${each(r.all ?? [])})${r.errors ? `, ${r.errors} errors` : ''}`;
      if (name === GATEWAY) {
        lines.push(`| ${c.name} | ${name} | ${rounds} | | ${us} | | |`);
        continue;
      }
      const once = atOnceRatio(c.atOnce, name, GATEWAY);
      const goal = name === BARE ? GOALS.bare : name === NGINX ? GOALS.nginx : NaN;
      const verdict = c.name.startsWith('identity') ? '' : `≥ ${goal}: ${met(once.median >= goal)}`;
      lines.push(
        `| ${c.name} | ${name} | ${rounds} | ${(gr.rps / r.rps).toFixed(2)} | ${us} | ` +
          `**${once.median.toFixed(2)}** (${once.lowest.toFixed(2)}–${once.highest.toFixed(2)}) | ${verdict} |`,
      );
    }
  }
  const sizes = cases.map((c) => `${c.name} ${c.sample.body.length.toLocaleString('en')} bytes`).join(', ');
  lines.push('', `Bodies: ${sizes}.`);
  return lines.join('\n');
}
