// What a gateway costs before it serves anything: the idle RSS of the listening process once
// /health has answered 200, beside a bare node:http server's measured the same way in the same
// run, and the time from the spawn of `node scripts/start.mjs` (what npm start execs; npm's own
// start is not counted) to that first 200, with the bundle already made and the dataset
// published. The same for the gateway run from the sources through tsx (npm run dev, and npm start
// before it ran the bundle), for comparison. Starts alternate, and each figure is the median of its starts.
import { join } from 'node:path';
import { type Bench, HEALTH } from './context.ts';
import { median, probe, rssOf } from './load.ts';
import { startBare, startGateway } from './servers.ts';

interface Starts {
  rss: number[];
  startupMs: number[];
}
export interface Footprint {
  gateway: Starts;
  tsx: Starts;
  bare: Starts;
}

/** Long enough for start-up's garbage to be collected or not, as it would be on an idle server. */
const SETTLE_MS = 2_000;
const settle = () => new Promise((r) => setTimeout(r, SETTLE_MS));

export async function footprint(b: Bench, siteDir: string, starts = Math.max(3, b.rounds)): Promise<Footprint> {
  const f: Footprint = {
    gateway: { rss: [], startupMs: [] },
    tsx: { rss: [], startupMs: [] },
    bare: { rss: [], startupMs: [] },
  };
  const gateway = (how: 'bundle' | 'tsx') => async (i: number) => {
    const g = await startGateway(b, { STATE_DIR: join(b.work, `footprint-${how}-${i}`), SITE_DIR: siteDir }, how);
    await settle();
    f[how === 'bundle' ? 'gateway' : 'tsx'].rss.push(rssOf(g.pid, 'VmRSS'));
    f[how === 'bundle' ? 'gateway' : 'tsx'].startupMs.push(g.startupMs);
    await g.stop();
  };
  const one: Record<'gateway' | 'tsx' | 'bare', (i: number) => Promise<void>> = {
    gateway: gateway('bundle'),
    tsx: gateway('tsx'),
    bare: async () => {
      const bare = await startBare(b, 200, [['Content-Type', 'application/json']], Buffer.from('{"status":"ok"}'));
      await probe(bare.url, HEALTH, {});
      await settle();
      f.bare.rss.push(rssOf(bare.pid, 'VmRSS'));
      f.bare.startupMs.push(bare.startupMs);
      await bare.stop();
    },
  };
  const order = ['gateway', 'bare', 'tsx'] as const;
  for (let i = 0; i < starts; i++) for (let j = 0; j < order.length; j++) await one[order[(i + j) % order.length]!](i);
  const [g, bare, t] = [summary(f.gateway), summary(f.bare), summary(f.tsx)];
  console.error(
    `idle RSS: gateway ${g.rss.toFixed(1)} MiB, bare node:http ${bare.rss.toFixed(1)} MiB, through tsx ` +
      `${t.rss.toFixed(1)} MiB; start to first 200 on /health: gateway ${g.startupMs.toFixed(0)} ms, ` +
      `through tsx ${t.startupMs.toFixed(0)} ms`,
  );
  return f;
}

export const summary = (x: { rss: number[]; startupMs: number[] }) => ({
  rss: median(x.rss),
  startupMs: median(x.startupMs),
});
