// npm start: configuration from the environment (once), a build if none is published yet, then
// the gateway until SIGTERM or SIGINT, which drain in-flight requests and save the hourly windows.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { POINTER_FILE } from '../build/site-format.ts';
import { type Config, ConfigError, loadConfig } from './config.ts';
import { type Gateway, startGateway } from './server.ts';
import { StateDirError } from './store/state-lock.ts';

let config: Readonly<Config>;
try {
  config = loadConfig(process.env);
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  console.error(`configuration error: ${err.message}`);
  process.exit(1);
}

if (!existsSync(join(config.siteDir, POINTER_FILE))) {
  // The build (YAML, ajv and its compiled schemas) is loaded only here: a gateway serving a
  // published build never holds it, nor its memory, as the Redis and proxy modules are loaded only
  // in their modes (docs/performance.md: the measurements behind the code).
  const [{ buildSite }, { publishSite }, { formatError }] = await Promise.all([
    import('../build/build-site.ts'),
    import('../build/publish.ts'),
    import('../build/validate.ts'),
  ]);
  const result = buildSite(config.datasetDir);
  if (!result.ok) {
    for (const e of result.errors) console.error(formatError(e));
    console.error('no build is published and the dataset does not build; fix it and run npm run build');
    process.exit(1);
  }
  publishSite(config.siteDir, result.site);
}

let gateway: Gateway;
try {
  gateway = await startGateway({ config });
} catch (err) {
  // A state directory another gateway holds, or one that cannot be used: a sentence, no stack
  // (docs/operations.md, "When something goes wrong").
  if (!(err instanceof StateDirError)) throw err;
  console.error(`start-up refused: ${err.message}`);
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
