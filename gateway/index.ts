// The gateway's entry (bundled for npm start, run from the sources by npm run dev): configuration
// from the environment (once), then the gateway until SIGTERM or SIGINT, which drain in-flight
// requests and save the hourly windows. It serves a published build and never makes one: npm start
// builds first when none is published (scripts/start.mjs).
import { setFlagsFromString } from 'node:v8';
import { type Gateway, startGateway } from './server.ts';
import { configOrExit, isPublished } from './startup.ts';
import { StateDirError } from './store/state-lock.ts';

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
  // A port another process holds, a state directory another gateway holds, or one that cannot be
  // used: a sentence, no stack (docs/operations.md, "When something goes wrong").
  const code = (err as NodeJS.ErrnoException).code;
  const where = `${config.host ?? 'every address'} port ${config.port}`;
  if (code === 'EADDRINUSE') console.error(`start-up refused: ${where} is in use: stop what holds it, or set PORT`);
  else if (code === 'EACCES') console.error(`start-up refused: ${where} is not open to this user: set PORT above 1023`);
  else if (err instanceof StateDirError) console.error(`start-up refused: ${err.message}`);
  else throw err;
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
