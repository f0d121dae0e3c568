// What a gateway costs before it serves anything: the idle RSS of the listening process once
// /health has answered 200, beside a bare node:http server's measured the same way in the same
// run, and the time from the spawn of `node scripts/start.mjs` (what npm start execs; npm's own
// start is not counted) to that first 200, with the bundle already made and the dataset
// published. The same for the gateway run from the sources through tsx (npm run dev, and npm start
// before it ran the bundle), for comparison. Starts alternate, and each figure is the median of its starts.
import { join } from 'node:path';
import { type Bench, HEALTH } from './context.ts';
import { median, probe, rssOf } from './load.ts';
import { type Running, startBare, startGateway } from './servers.ts';

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
  const start: Record<keyof Footprint, (i: number) => Promise<Running>> = {
    gateway: (i) => startGateway(b, { STATE_DIR: join(b.work, `footprint-${i}`), SITE_DIR: siteDir }),
    tsx: (i) => startGateway(b, { STATE_DIR: join(b.work, `footprint-tsx-${i}`), SITE_DIR: siteDir }, 'tsx'),
    bare: async () => {
      const bare = await startBare(b, 200, [['Content-Type', 'application/json']], Buffer.from('{"status":"ok"}'));
      await probe(bare.url, HEALTH, {});
      return bare;
    },
  };
  const order = ['gateway', 'bare', 'tsx'] as const;
  for (let i = 0; i < starts; i++) {
    for (let j = 0; j < order.length; j++) {
      const which = order[(i + j) % order.length]!;
      const server = await start[which](i);
      await settle();
      f[which].rss.push(rssOf(server.pid, 'VmRSS'));
      f[which].startupMs.push(server.startupMs);
      await server.stop();
    }
  }
  return f;
}

export const summary = (x: { rss: number[]; startupMs: number[] }) => ({
  rss: median(x.rss),
  startupMs: median(x.startupMs),
});
