// The accounts and keys a scenario sends: seeded straight into a store file, so 100,000 accounts
// take seconds, not an hour of registrations.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { digestBytes, generateKey, hashKey } from '../../gateway/keys.ts';
import { openDatabase } from '../../gateway/store/sqlite/schema.ts';

export function seedAccounts(stateDir: string, count: number): string {
  const db = openDatabase(stateDir);
  const account = db
    .prepare<[string, number], number>('INSERT INTO accounts (email, created_at) VALUES (?, ?) RETURNING id')
    .pluck();
  const insert = db.prepare('INSERT INTO api_keys (account_id, key_hash, created_at) VALUES (?, ?, ?)');
  const keys: string[] = [];
  const now = Date.now();
  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      const key = generateKey();
      keys.push(key);
      insert.run(account.get(`bench-${i}@example.com`, now), digestBytes(hashKey(key)), now);
    }
  })();
  db.close();
  const file = join(stateDir, `keys-${count}.txt`);
  writeFileSync(file, `${keys.join('\n')}\n`);
  return file;
}

export function unknownKeys(dir: string, count: number): string {
  const file = join(dir, 'unknown-keys.txt');
  writeFileSync(file, `${Array.from({ length: count }, generateKey).join('\n')}\n`);
  return file;
}
