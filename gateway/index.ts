// The gateway's entry (bundled for npm start, run from the sources by npm run dev): configuration
// from the environment (once), then the gateway until SIGTERM or SIGINT, which drain in-flight
// requests and save the hourly windows.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { POINTER_FILE } from '../build/site-format.ts';
import { type Config, ConfigError, loadConfig } from './config.ts';
import { type Gateway, startGateway } from './server.ts';
import { StateDirError } from './store/state-lock.ts';

/** npm run dev on a fresh clone: npm run build's own command, as a child; true when it published. */
function publishForDevelopment(siteDir: string, datasetDir: string): boolean {
  console.error(`no build is published in ${siteDir}: building the dataset first`);
  const cli = fileURLToPath(new URL('../build/index.ts', import.meta.url));
  const args = ['--import', 'tsx', cli, '--dataset', datasetDir, '--out', siteDir, '--no-gateway'];
  return spawnSync(process.execPath, args, { stdio: 'inherit' }).status === 0;
}

let config: Readonly<Config>;
try {
  config = loadConfig(process.env);
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  console.error(`configuration error: ${err.message}`);
  process.exit(1);
}

if (!existsSync(join(config.siteDir, POINTER_FILE))) {
  // The gateway serves a published build and never makes one: the build (YAML, ajv, the page
  // assets read beside its sources) cannot run from the bundle, and its memory would stay in the
  // serving process. npm start builds before it starts the bundle (scripts/start.mjs); the
  // development run, from the sources, has the build run in a process of its own.
  const fromSources = import.meta.url.endsWith('.ts');
  if (!fromSources || !publishForDevelopment(config.siteDir, config.datasetDir)) {
    console.error(`no build is published in ${config.siteDir}: run npm run build (npm start does it for you)`);
    process.exit(1);
  }
}

let gateway: Gateway;
try {
  gateway = await startGateway({ config });
} catch (err) {
  // A port another process holds, a state directory another gateway holds, or one that cannot be
  // used: a sentence, no stack (docs/operations.md, "When something goes wrong").
  const code = (err as NodeJS.ErrnoException).code;
  const where = `${config.host ?? 'every address'} port ${config.port}`;
  if (code === 'EADDRINUSE') console.error(`start-up refused: ${where} is in use: stop what holds it, or set PORT`);
  else if (code === 'EACCES') console.error(`start-up refused: ${where} is not open to this user: set PORT above 1023`);
  else if (err instanceof StateDirError) console.error(`start-up refused: ${err.message}`);
  else throw err;
  process.exit(1);
}
const stop = (signal: string) => {
  gateway.log({ event: 'shutdown', signal });
  gateway.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.once('SIGTERM', () => stop('SIGTERM'));
process.once('SIGINT', () => stop('SIGINT'));
