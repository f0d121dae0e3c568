// The `grain-tables` command, the client package's bin: `grain-tables sync …` and
// `grain-tables grade …` (the same code as npm run sync and npm run grade in the service's repository).
import { CLIENT_VERSION, SCHEMA_VERSION } from '../version.ts';
import { gradeCommand } from './grade-command.ts';
import { mirrorCommand } from './mirror-command.ts';
import { syncCommand } from './sync-command.ts';

const USAGE = `usage: grain-tables <command> [options]

  sync   keep a copy of every grading table in a folder, in one request (grain-tables sync --help)
  grade  grade a sample against a class's table (grain-tables grade --help)
  mirror write the signed edition as a static tree to sync from (grain-tables mirror --help)

  --version  the package's version and the schema_version it reads`;

/** The command line to its exit code; `env` is the process's environment (API_KEY, SITE_DIR). */
export async function grainTables(argv: string[], env: Record<string, string | undefined>): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'sync') return syncCommand(rest, { command: 'grain-tables sync', apiKey: env.API_KEY });
  if (command === 'mirror') return mirrorCommand(rest, { command: 'grain-tables mirror', apiKey: env.API_KEY });
  if (command === 'grade') return gradeCommand(rest, { command: 'grain-tables grade', siteDir: env.SITE_DIR });
  if (command === '--version' || command === '-v') {
    console.log(`${CLIENT_VERSION} (reads schema_version ${SCHEMA_VERSION})`);
    return 0;
  }
  if (command === '--help' || command === '-h') {
    console.log(USAGE);
    return 0;
  }
  console.error(`${command === undefined ? 'no command given' : `unknown command "${command}"`}\n${USAGE}`);
  return 2;
}
