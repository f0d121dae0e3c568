// npm run bench:production [-- --duration 5 --warmup 3 --rounds 3 --at-once-rounds 8 --quick]
// Issue 29's part of npm run bench alone (about five minutes): idle memory and start-up, and the
// br-encoded 200 and the 304 against a bare node:http server and nginx replaying the gateway's
// bytes. Prints the tables for docs/performance.md; npm run bench adds them to its dated section.
import { join } from 'node:path';
import { buildSite } from '../../build/build-site.ts';
import { publishSite } from '../../build/publish.ts';
import { HAS_TASKSET, HAS_WRK, RECORD, root, runBench, work } from './context.ts';
import { seedAccounts } from './data.ts';
import { footprint } from './footprint.ts';
import { realRequests } from './real-request.ts';
import { productionReport } from './report-production.ts';
import { bundleForBench, startGateway } from './servers.ts';

async function main() {
  if (!HAS_WRK || !HAS_TASKSET) throw new Error('needs wrk and two CPUs (apt-get install wrk)');
  const built = buildSite(join(root, 'dataset'));
  if (!built.ok) throw new Error('the dataset does not build');
  const siteDir = join(work, 'site');
  publishSite(siteDir, built.site);
  bundleForBench();
  const f = await footprint(siteDir);
  const state = join(work, 'state');
  const keysFile = seedAccounts(state, 1_000);
  const gateway = await startGateway({ STATE_DIR: state, SITE_DIR: siteDir, RATE_LIMIT_PER_HOUR: '1000000000' });
  const cases = await realRequests(gateway, keysFile, RECORD);
  await gateway.stop();
  console.log(`\n${productionReport(f, cases)}`);
}

runBench(main);
