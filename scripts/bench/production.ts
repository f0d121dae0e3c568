// npm run bench:production [-- --duration 5 --warmup 3 --rounds 3 --at-once-rounds 8 --quick --out FILE]
// The production part of npm run bench alone (about five minutes): idle memory and start-up, and the
// br-encoded 200 and the 304 against a bare node:http server and nginx replaying the gateway's
// bytes. Prints its report (Markdown) to stdout, and writes it to FILE with --out.
import { join } from 'node:path';
import { type Bench, RECORD, runBench } from './context.ts';
import { seedAccounts } from './data.ts';
import { footprint } from './footprint.ts';
import { realRequests } from './real-request.ts';
import { publishRealSite } from './real-site.ts';
import { runHeader } from './report.ts';
import { productionReport } from './report-production.ts';
import { startGateway } from './servers.ts';

async function main(b: Bench) {
  const siteDir = await publishRealSite(b);
  const f = await footprint(b, siteDir);
  const state = join(b.work, 'state');
  const keysFile = seedAccounts(state, 1_000);
  const gateway = await startGateway(b, { STATE_DIR: state, SITE_DIR: siteDir, RATE_LIMIT_PER_HOUR: '1000000000' });
  const cases = await realRequests(b, gateway, keysFile, RECORD);
  await gateway.stop();
  return `${runHeader(b)}\n\n${productionReport(b, f, cases)}`;
}

runBench(process.argv.slice(2), main, {
  help: `The production part of npm run bench alone (about five minutes): idle memory and start-up, then
the br-encoded 200 and the 304 against a bare node:http server and nginx replaying the gateway's
bytes. Prints the report (Markdown) to stdout.`,
});
