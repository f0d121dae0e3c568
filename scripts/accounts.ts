// npm run accounts -- list [--sort created|last-used|requests] [--csv] | show <email> [--csv]
//                   | revoke <email> <key id> | revoke <email> --all
// Works on the gateway's own store: REDIS_URL's Redis when set, else STATE_DIR's SQLite file.
// A revoked key is refused by running gateways within their bound (docs/operations.md). Usage
// (requests, last use) is what the gateways had saved: up to a checkpoint behind (SQLite).
// Exit codes: 0 done, 1 no such account or key (or the store cannot be reached), 2 usage.
import { type Config, ConfigError, loadConfig } from '../gateway/config.ts';
import { redisAccountQueries } from '../gateway/store/redis.ts';
import { openRedisClient } from '../gateway/store/redis-client.ts';
import { accountQueries, openDatabase } from '../gateway/store/sqlite-schema.ts';
import type { AccountQueries, AccountRow, KeyRow } from '../gateway/store/types.ts';

const USAGE = `usage: npm run accounts -- list [--sort created|last-used|requests] [--csv]
                          | show <email> [--csv]
                          | revoke <email> <key id> | revoke <email> --all`;
const iso = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString());
const live = (a: AccountRow) => a.keys.filter((k) => k.revoked_at === null).length;
const requestsOf = (a: AccountRow) => a.keys.reduce((n, k) => n + k.requests, 0);
/** The account's last use: its most recently used key's. */
const lastUsed = (a: AccountRow) => {
  const used = a.keys.map((k) => k.last_used_at).filter((t): t is number => t !== null);
  return used.length ? Math.max(...used) : null;
};
const accountLine = (a: AccountRow) =>
  `${a.id}\t${a.email}\tcreated ${iso(a.created_at)}\t${live(a)} live key(s) of ${a.keys.length}\t` +
  `${requestsOf(a)} request(s)\tlast used ${iso(lastUsed(a))}`;
const keyLine = (k: KeyRow) =>
  `  key ${k.id}\tcreated ${iso(k.created_at)}\tlast used ${iso(k.last_used_at)}\t${k.requests} request(s)\t` +
  (k.revoked_at === null ? 'live' : `revoked ${iso(k.revoked_at)}`);

const SORTS: Record<string, (a: AccountRow, b: AccountRow) => number> = {
  created: (a, b) => a.created_at - b.created_at || Number(a.id) - Number(b.id),
  // most recent first; never used last
  'last-used': (a, b) => (lastUsed(b) ?? -1) - (lastUsed(a) ?? -1) || Number(a.id) - Number(b.id),
  requests: (a, b) => requestsOf(b) - requestsOf(a) || Number(a.id) - Number(b.id),
};

/**
 * RFC 4180 fields; a field a spreadsheet would run as a formula (=, +, -, @, tab, CR first) is
 * prefixed with ' (OWASP's advice on CSV injection): e-mail addresses are what users typed.
 */
const csvField = (v: string | number | null) => {
  let s = v === null ? '' : String(v);
  if (typeof v === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};
const CSV_HEADER = 'account_id,email,account_created_at,key_id,key_created_at,last_used_at,revoked_at,requests';
const isoOrNull = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
/** One row per key (an account without keys: one row, key fields empty); times in ISO 8601. */
function csvRows(a: AccountRow): string[] {
  const keys: (KeyRow | null)[] = a.keys.length ? a.keys : [null];
  return keys.map((k) =>
    [
      a.id,
      a.email,
      isoOrNull(a.created_at),
      k?.id ?? null,
      isoOrNull(k?.created_at ?? null),
      isoOrNull(k?.last_used_at ?? null),
      isoOrNull(k?.revoked_at ?? null),
      k?.requests ?? null,
    ]
      .map(csvField)
      .join(','),
  );
}

/** `list`'s options, or null when they are not understood. */
function listOptions(args: string[]): { sort: string; csv: boolean } | null {
  let sort = 'created';
  let csv = false;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--csv' && !csv) csv = true;
    else if (args[i] === '--sort' && SORTS[args[i + 1] ?? '']) sort = args[++i]!;
    else return null;
  }
  return { sort, csv };
}

async function run(q: AccountQueries, args: string[]): Promise<number> {
  const [command, rawEmail, which] = args;
  const email = rawEmail?.trim().toLowerCase();
  const list = command === 'list' ? listOptions(args.slice(1)) : null;
  if (list) {
    const rows = (await q.list()).sort(SORTS[list.sort]);
    if (list.csv) {
      console.log([CSV_HEADER, ...rows.flatMap(csvRows)].join('\n'));
      return 0;
    }
    for (const a of rows) console.log(accountLine(a));
    console.log(`${rows.length} account(s)`);
    return 0;
  }
  const csv = command === 'show' && args.length === 3 && which === '--csv';
  if ((command === 'show' && (args.length === 2 || csv)) || (command === 'revoke' && args.length === 3)) {
    const a = await q.show(email!);
    if (!a) {
      console.error(`no account for ${email}`);
      return 1;
    }
    if (command === 'show') {
      if (csv) console.log([CSV_HEADER, ...csvRows(a)].join('\n'));
      else for (const line of [accountLine(a), ...a.keys.map(keyLine)]) console.log(line);
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
