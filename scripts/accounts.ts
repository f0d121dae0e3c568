// npm run accounts -- list | show <email> | revoke <email>
// Works on the gateway's own store (STATE_DIR's SQLite file). A revocation takes effect on a
// running gateway at its next request: the embedded gateway looks keys up in the file itself.
import { ConfigError, loadConfig } from '../gateway/config.ts';
import { accountQueries, openDatabase } from '../gateway/store/sqlite.ts';
import type { AccountRow } from '../gateway/store/types.ts';

const [command, email] = process.argv.slice(2);
const usage = 'usage: npm run accounts -- list | show <email> | revoke <email>';
const iso = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString());
const line = (a: AccountRow) =>
  `${a.id}\t${a.email}\tcreated ${iso(a.created_at)}\tkey issued ${iso(a.key_issued_at)}\t${a.revoked_at === null ? (a.key_issued_at === null ? 'no key' : 'active') : `revoked ${iso(a.revoked_at)}`}`;

function main(): number {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`configuration error: ${err.message}`);
      return 1;
    }
    throw err;
  }
  const db = openDatabase(config.stateDir);
  const q = accountQueries(db);
  const normal = email?.trim().toLowerCase();
  try {
    switch (command) {
      case 'list': {
        const rows = q.list();
        for (const a of rows) console.log(line(a));
        console.log(`${rows.length} account(s)`);
        return 0;
      }
      case 'show': {
        if (!normal) break;
        const a = q.show(normal);
        if (!a) {
          console.error(`no account for ${normal}`);
          return 1;
        }
        console.log(line(a));
        return 0;
      }
      case 'revoke': {
        if (!normal) break;
        if (!q.show(normal)) {
          console.error(`no account for ${normal}`);
          return 1;
        }
        console.log(q.revoke(normal, Date.now()) ? `revoked the key of ${normal}` : `${normal} has no active key`);
        return 0;
      }
    }
    console.error(usage);
    return 2;
  } finally {
    db.close();
  }
}

process.exit(main());
