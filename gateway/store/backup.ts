// A consistent copy of the embedded store while a gateway serves from it (docs/operations.md,
// "Backups"): SQLite's online backup through better-sqlite3, from a connection of its own (the
// gateway's lock is a separate file, so it never waits for the gateway, nor the gateway for it).
// The copy is written beside its destination and linked into place, which fails if something is
// already there: a backup never overwrites a file, even one that appears while it runs.
import { existsSync, linkSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { DB_FILE } from './sqlite/schema.ts';

export class BackupError extends Error {}

export interface BackupResult {
  accounts: number;
  keys: number;
  bytes: number;
}

export async function backupStore(stateDir: string, destination: string): Promise<BackupResult> {
  const source = join(stateDir, DB_FILE);
  if (!existsSync(source)) throw new BackupError(`no store at ${source}: is STATE_DIR the gateway's?`);
  if (existsSync(destination)) throw new BackupError(`${destination} exists: a backup never overwrites a file`);
  const partial = `${destination}.partial-${process.pid}`;
  const db = new Database(source, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    // every remaining page in one step (one read transaction), so the copy is of one moment however
    // busy the gateway is; the store is small (performance.md), so the step is short
    await db.backup(partial, { progress: () => 0x7fffffff });
  } finally {
    db.close();
  }
  try {
    const copy = new Database(partial, { readonly: true, fileMustExist: true });
    try {
      const check = copy.pragma('integrity_check', { simple: true });
      if (check !== 'ok') throw new BackupError(`the copy failed SQLite's integrity check: ${String(check)}`);
      const count = (table: string) => (copy.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
      const result = { accounts: count('accounts'), keys: count('api_keys'), bytes: 0 };
      result.bytes = (
        copy.prepare('SELECT page_count * page_size AS b FROM pragma_page_count, pragma_page_size').get() as {
          b: number;
        }
      ).b;
      copy.close();
      linkSync(partial, destination);
      return result;
    } catch (err) {
      copy.close();
      if ((err as NodeJS.ErrnoException).code === 'EEXIST')
        throw new BackupError(`${destination} exists: a backup never overwrites a file`);
      throw err;
    }
  } finally {
    rmSync(partial, { force: true });
  }
}
