// npm run backup -- <file>: a consistent copy of the embedded store (STATE_DIR's SQLite file),
// taken while the gateway serves; refuses a file that exists. Restoring it: docs/operations.md,
// "Backups". With REDIS_URL the keys are in Redis, whose own files are what to back up.
import { resolve } from 'node:path';
import { readArgs, usageExit } from '../build/cli-args.ts';
import { configOrExit } from '../gateway/startup.ts';
import { BackupError, backupStore } from '../gateway/store/backup.ts';

const spec = {
  command: 'npm run backup --',
  usage: '<file>',
  help: `
Copies STATE_DIR's store (accounts, key hashes, usage, the saved hourly windows) into <file> with
SQLite's online backup: consistent, and safe while the gateway runs. Refuses a <file> that exists.
Restore: stop the gateway, put the file in STATE_DIR as gateway.sqlite (docs/operations.md, Backups).

Exit codes: 0 written, 1 not written (no store, the file exists, a store in Redis), 2 usage.`,
  options: {},
  positionals: true,
} as const;

const { positionals } = readArgs(spec);
if (positionals.length !== 1) usageExit(spec, 'give the file to write, and only that');
const config = configOrExit(process.env);
if (config.redis) {
  console.error(
    'Redis is configured: the keys are in Redis; back up its RDB or AOF files (docs/operations.md, Backups)',
  );
  process.exit(1);
}
const file = resolve(positionals[0]!);
try {
  const { accounts, keys, bytes } = await backupStore(config.stateDir, file);
  console.log(`backed up ${accounts} accounts and ${keys} keys (${Math.ceil(bytes / 1024)} KiB) into ${file}`);
} catch (err) {
  if (!(err instanceof BackupError) && !(err instanceof Error && 'code' in err)) throw err;
  console.error(`backup not written: ${(err as Error).message}`);
  process.exit(1);
}
