// The accounts and keys a scenario sends: seeded straight into a store file, so 100,000 accounts
// take seconds, not an hour of registrations.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { digestBytes, generateKey, hashKey } from '../../gateway/keys.ts';
import { openDatabase } from '../../gateway/store/sqlite.ts';
import { work } from './context.ts';

export function seedAccounts(stateDir: string, count: number): string {
  const db = openDatabase(stateDir);
  const insert = db.prepare('INSERT INTO accounts (email, key_hash, created_at, key_issued_at) VALUES (?, ?, ?, ?)');
  const keys: string[] = [];
  const now = Date.now();
  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      const key = generateKey();
      keys.push(key);
      insert.run(`bench-${i}@example.com`, digestBytes(hashKey(key)), now, now);
    }
  })();
  db.close();
  const file = join(stateDir, `keys-${count}.txt`);
  writeFileSync(file, `${keys.join('\n')}\n`);
  return file;
}

export function unknownKeys(count: number): string {
  const file = join(work, 'unknown-keys.txt');
  writeFileSync(file, `${Array.from({ length: count }, generateKey).join('\n')}\n`);
  return file;
}
