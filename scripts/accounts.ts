// npm run accounts -- list | show <email> | revoke <email>
// Works on the gateway's own store: REDIS_URL's Redis when set, else STATE_DIR's SQLite file.
// A revoked key is refused by running gateways within their bound (README: Operators).
import { type Config, ConfigError, loadConfig } from '../gateway/config.ts';
import { redisAccountQueries } from '../gateway/store/redis.ts';
import { openRedisClient } from '../gateway/store/redis-client.ts';
import { accountQueries, openDatabase } from '../gateway/store/sqlite.ts';
import type { AccountRow } from '../gateway/store/types.ts';

const [command, email] = process.argv.slice(2);
const usage = 'usage: npm run accounts -- list | show <email> | revoke <email>';
const iso = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString());
const line = (a: AccountRow) =>
  `${a.id}\t${a.email}\tcreated ${iso(a.created_at)}\tkey issued ${iso(a.key_issued_at)}\t${a.revoked_at === null ? (a.key_issued_at === null ? 'no key' : 'active') : `revoked ${iso(a.revoked_at)}`}`;

async function main(): Promise<number> {
  let config: Readonly<Config>;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`configuration error: ${err.message}`);
      return 1;
    }
    throw err;
  }
  let q: {
    list(): AccountRow[] | Promise<AccountRow[]>;
    show(e: string): AccountRow | null | Promise<AccountRow | null>;
    revoke(e: string, now: number): boolean | Promise<boolean>;
  };
  let close: () => void;
  if (config.redisUrl) {
    const client = await openRedisClient(config.redisUrl);
    q = redisAccountQueries(client, config.redisPrefix);
    close = () => client.disconnect();
  } else {
    const db = openDatabase(config.stateDir);
    q = accountQueries(db);
    close = () => db.close();
  }
  const normal = email?.trim().toLowerCase();
  try {
    switch (command) {
      case 'list': {
        const rows = await q.list();
        for (const a of rows) console.log(line(a));
        console.log(`${rows.length} account(s)`);
        return 0;
      }
      case 'show': {
        if (!normal) break;
        const a = await q.show(normal);
        if (!a) {
          console.error(`no account for ${normal}`);
          return 1;
        }
        console.log(line(a));
        return 0;
      }
      case 'revoke': {
        if (!normal) break;
        if (!(await q.show(normal))) {
          console.error(`no account for ${normal}`);
          return 1;
        }
        console.log(
          (await q.revoke(normal, Date.now())) ? `revoked the key of ${normal}` : `${normal} has no active key`,
        );
        return 0;
      }
    }
    console.error(usage);
    return 2;
  } finally {
    close();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`accounts: ${(err as Error).message}`);
    process.exit(1);
  },
);
