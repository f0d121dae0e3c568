// npm run sync -- …: the client package's `grain-tables sync`, run from this repository
// (build/client/cli/sync-command.ts; docs/sync.md).
import { runCli } from '../build/cli-args.ts';
import { syncCommand } from '../build/client/cli/sync-command.ts';

runCli('sync', () => syncCommand(process.argv.slice(2), { command: 'npm run sync --', apiKey: process.env.API_KEY }));
