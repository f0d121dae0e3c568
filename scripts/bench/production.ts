// npm run bench:production [-- --duration 5 --warmup 3 --rounds 3 --at-once-rounds 8 --quick]
// The production part of npm run bench alone (about five minutes): idle memory and start-up, and the
// br-encoded 200 and the 304 against a bare node:http server and nginx replaying the gateway's
// bytes. Prints the tables for docs/performance.md; npm run bench adds them to its dated section.
import { join } from 'node:path';
import { RECORD, runBench, work } from './context.ts';
import { seedAccounts } from './data.ts';
import { footprint } from './footprint.ts';
import { realRequests } from './real-request.ts';
import { publishRealSite, requireWrkAndTwoCores } from './real-site.ts';
import { productionReport } from './report-production.ts';
import { bundleForBench, startGateway } from './servers.ts';

async function main() {
  requireWrkAndTwoCores();
  const siteDir = publishRealSite();
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
