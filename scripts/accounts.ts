// npm run accounts -- list | show <email> | revoke <email> <key id> | revoke <email> --all
// Works on the gateway's own store: REDIS_URL's Redis when set, else STATE_DIR's SQLite file.
// A revoked key is refused by running gateways within their bound (docs/operations.md).
// Exit codes: 0 done, 1 no such account or key (or the store cannot be reached), 2 usage.
import { type Config, ConfigError, loadConfig } from '../gateway/config.ts';
import { redisAccountQueries } from '../gateway/store/redis.ts';
import { openRedisClient } from '../gateway/store/redis-client.ts';
import { accountQueries, openDatabase } from '../gateway/store/sqlite-schema.ts';
import type { AccountQueries, AccountRow, KeyRow } from '../gateway/store/types.ts';

const USAGE = 'usage: npm run accounts -- list | show <email> | revoke <email> <key id> | revoke <email> --all';
const iso = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString());
const live = (a: AccountRow) => a.keys.filter((k) => k.revoked_at === null).length;
const accountLine = (a: AccountRow) =>
  `${a.id}\t${a.email}\tcreated ${iso(a.created_at)}\t${live(a)} live key(s) of ${a.keys.length}`;
const keyLine = (k: KeyRow) =>
  `  key ${k.id}\tcreated ${iso(k.created_at)}\tlast used ${iso(k.last_used_at)}\t` +
  (k.revoked_at === null ? 'live' : `revoked ${iso(k.revoked_at)}`);

async function run(q: AccountQueries, args: string[]): Promise<number> {
  const [command, rawEmail, which] = args;
  const email = rawEmail?.trim().toLowerCase();
  if (command === 'list' && args.length === 1) {
    const rows = await q.list();
    for (const a of rows) console.log(accountLine(a));
    console.log(`${rows.length} account(s)`);
    return 0;
  }
  if ((command === 'show' && args.length === 2) || (command === 'revoke' && args.length === 3)) {
    const a = await q.show(email!);
    if (!a) {
      console.error(`no account for ${email}`);
      return 1;
    }
    if (command === 'show') {
      console.log(accountLine(a));
      for (const k of a.keys) console.log(keyLine(k));
      return 0;
    }
    const keyId = which === '--all' ? null : which!;
    if (keyId !== null && !a.keys.some((k) => k.id === keyId)) {
      console.error(`${email} has no key ${keyId} (npm run accounts -- show ${email} lists its keys)`);
      return 1;
    }
    const n = await q.revoke(email!, keyId, Date.now());
    console.log(`revoked ${n} live key(s) of ${email}`);
    return 0;
  }
  console.error(USAGE);
  return 2;
}

async function main(): Promise<number> {
  let config: Readonly<Config>;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(`configuration error: ${err.message}`);
    return 1;
  }
  if (config.redisUrl) {
    const client = await openRedisClient(config.redisUrl);
    try {
      return await run(redisAccountQueries(client, config.redisPrefix), process.argv.slice(2));
    } finally {
      client.disconnect();
    }
  }
  const db = openDatabase(config.stateDir);
  try {
    return await run(accountQueries(db), process.argv.slice(2));
  } finally {
    db.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`accounts: ${(err as Error).message}`);
    process.exit(1);
  },
);
