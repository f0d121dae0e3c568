// What a start decides before the gateway listens, shared by the gateway's entry (index.ts) and
// npm start's launcher (scripts/start.mjs, through its bundle): the configuration, read once from
// the environment, and whether a build is published. Each refusal is a sentence and exit status 1,
// never a stack (docs/operations.md, "When something goes wrong").
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { POINTER_FILE } from '../build/site-format.ts';
import { type Config, ConfigError, loadConfig } from './config.ts';

export function configOrExit(env: NodeJS.ProcessEnv): Readonly<Config> {
  try {
    return loadConfig(env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(`configuration error: ${err.message}`);
    process.exit(1);
  }
}

export const isPublished = (config: Readonly<Config>) => existsSync(join(config.siteDir, POINTER_FILE));

/** npm start builds a missing site from DATASET_DIR: without one there is nothing to build from. */
export function refuseUnlessBuildable(config: Readonly<Config>): void {
  if (existsSync(config.datasetDir)) return;
  console.error(
    `start-up refused: no build is published in ${config.siteDir} and there is no dataset in ` +
      `${config.datasetDir} to build one from: publish one with npm run build, or set SITE_DIR or DATASET_DIR.`,
  );
  process.exit(1);
}
