// The gateway's entry (bundled for npm start, run from the sources by npm run dev): configuration
// from the environment (once), then the gateway until SIGTERM or SIGINT, which drain in-flight
// requests and save the hourly windows. It serves a published build and never makes one: npm start
// builds first when none is published (scripts/start.mjs).
import { setFlagsFromString } from 'node:v8';
import { type Gateway, startGateway } from './server.ts';
import { startRefusal } from './start-refusal.ts';
import { configOrExit, isPublished } from './startup.ts';

// V8's memory reducer gives the heap back once the process has been quiet for some seconds; after
// it, the request path stayed slower for as long as load was measured, where without it the
// gateway served as fast after a quiet spell as before (docs/performance.md, "The measurements
// behind the code"). A server keeps its heap between bursts instead. Set here, at run time, before
// the gateway starts, it measured the same as on node's command line.
setFlagsFromString('--no-memory-reducer');

const config = configOrExit(process.env);
if (!isPublished(config)) {
  const sentence = `no build is published in ${config.siteDir}: run npm run build (npm start does it for you)`;
  console.error(`start-up refused: ${sentence}.`);
  process.exit(1);
}

const gateway: Gateway = await startGateway({ config }).catch((err: unknown) => {
  // A port another process holds, a HOST that is not this machine's, a state directory another
  // gateway holds, an upstream origin that does not answer: a sentence, no stack
  // (docs/operations.md, "When something goes wrong").
  const sentence = startRefusal(err, config);
  if (sentence === null) throw err;
  console.error(`start-up refused: ${sentence}`);
  process.exit(1);
});
const stop = (signal: string) => {
  gateway.log({ event: 'shutdown', signal });
  gateway.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.once('SIGTERM', () => stop('SIGTERM'));
process.once('SIGINT', () => stop('SIGINT'));
