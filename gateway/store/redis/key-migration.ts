// Keys stored before they had ids of their own move once, at the first connection. The move is a
// script that is safe to run twice, so several instances starting together need no coordination;
// a failed move is tried again at the next connection.
import type { Scripted } from './client.ts';
import { redisKeys } from './key-names.ts';

export function migrateKeysOnConnect(client: Scripted, prefix: string, log: (fields: Record<string, unknown>) => void) {
  const k = redisKeys(prefix);
  let migrated = false;
  client.on('ready', () => {
    if (migrated) return;
    migrated = true;
    client.migrateKeys(k.accounts, k.accountSeq, k.keySeq, prefix).then(
      (n) => n > 0 && log({ event: 'keys_migrated', store: 'redis', keys: n }),
      (err: Error) => {
        migrated = false;
        log({ event: 'keys_migration_failed', store: 'redis', error: err.message });
      },
    );
  });
}
