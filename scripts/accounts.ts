// npm run accounts -- list [--sort created|last-used|requests] [--csv] | show <email> [--csv]
//                   | revoke <email> <key id> | revoke <email> --all | revoke-leaked < key | accept-loss
// Works on the gateway's own store: Redis when REDIS_URL or REDIS_SENTINELS is set, else STATE_DIR's SQLite file.
// A revoked key is refused by running gateways within their bound (docs/operations.md). Usage
// (requests, last use) is what the gateways had saved: up to a checkpoint behind (SQLite).
// Exit codes: 0 done, 1 no such account or key (or the store cannot be reached), 2 usage.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { readArgs, usageExit } from '../build/cli-args.ts';
import { type Config, ConfigError, loadConfig } from '../gateway/config.ts';
import { accountQueries, DB_FILE, openDatabase } from '../gateway/store/sqlite/schema.ts';
import type { AccountQueries, AccountRow, KeyRow } from '../gateway/store/types.ts';
import { KEY_NOT_AN_ARGUMENT, readStandardInput, revokeLeaked } from './revoke-leaked.ts';

const spec = {
  command: 'npm run accounts --',
  usage:
    'list [--sort created|last-used|requests] [--csv] | show <email> [--csv] | revoke <email> <key id> ' +
    '| revoke <email> --all | revoke-leaked < file holding the key | accept-loss',
  help: `
Lists, shows and revokes accounts and keys in the gateway's own store: Redis when REDIS_URL or
REDIS_SENTINELS is set, else STATE_DIR's SQLite file (docs/operations.md, "Accounts CLI").

  list            every account: its live keys, requests and last use
    --sort ORDER  created (default), last-used (most recent first) or requests (most first)
    --csv         one row per key, for a spreadsheet
  show EMAIL      one account and each of its keys (--csv as for list)
  revoke EMAIL KEY_ID   revoke one key (show lists the ids)
  revoke EMAIL --all    revoke every live key of the account
  revoke-leaked   revoke the key read from standard input (a leaked key someone reported), and
                  name its account and key id; never pass the key as an argument
  accept-loss     Redis only: the gateways found the keys' store lost and no copy will bring it
                  back; new keys may be issued again, and a key issued before now is answered
                  401 saying so (docs/operations.md, "Redis in production")

Exit codes: 0 done, 1 no such account or key, a key already revoked, or no key on standard input
(or the store cannot be reached), 2 usage.`,
  options: { sort: { type: 'string' }, csv: { type: 'boolean' }, all: { type: 'boolean' } },
  positionals: true,
} as const;

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

interface Call {
  command: 'list' | 'show' | 'revoke' | 'revoke-leaked' | 'accept-loss';
  email: string;
  keyId: string | null;
  sort: keyof typeof SORTS;
  csv: boolean;
}

/** The call in argv, or a usage error saying what is wrong (exit 2). */
function readCall(argv: string[]): Call {
  const { values, positionals } = readArgs(spec, argv);
  const [command, rawEmail, keyId, ...rest] = positionals;
  const fail = (message: string) => usageExit(spec, message);
  const commands = 'list, show, revoke, revoke-leaked or accept-loss';
  if (command === 'accept-loss') {
    if (positionals.length > 1 || Object.keys(values).length) fail('accept-loss takes no argument');
    return { command, email: '', keyId: null, sort: 'created', csv: false };
  }
  if (command === 'revoke-leaked') {
    // a word after it may be the key: refused without repeating it
    if (positionals.length > 1) fail(KEY_NOT_AN_ARGUMENT);
    if (Object.keys(values).length) fail('revoke-leaked takes no option');
    return { command, email: '', keyId: null, sort: 'created', csv: false };
  }
  if (command !== 'list' && command !== 'show' && command !== 'revoke') {
    return fail(command ? `unknown command "${command}": ${commands}` : `a command is missing: ${commands}`);
  }
  const sort = values.sort ?? 'created';
  if (!(sort in SORTS)) fail(`--sort must be created, last-used or requests, not "${sort}"`);
  if (values.sort !== undefined && command !== 'list') fail('--sort goes with list');
  if (values.csv && command === 'revoke') fail('--csv goes with list or show');
  if (values.all && command !== 'revoke') fail('--all goes with revoke');
  const email = rawEmail?.trim().toLowerCase() ?? '';
  if (command === 'list' && rawEmail !== undefined) fail('list takes no e-mail address (show does)');
  if (command !== 'list' && !email) fail(`${command} needs an e-mail address`);
  if (command === 'show' && keyId !== undefined) fail('show takes one e-mail address');
  if (command === 'revoke' && (keyId === undefined) === !values.all) fail('revoke names one key id, or --all');
  if (rest.length) fail(`unexpected "${rest[0]}"`);
  return { command, email, keyId: keyId ?? null, sort: sort as keyof typeof SORTS, csv: Boolean(values.csv) };
}

async function run(q: AccountQueries, call: Call): Promise<number> {
  const { command, email } = call;
  if (command === 'revoke-leaked') return revokeLeaked(q, await readStandardInput(), Date.now());
  if (command === 'list') {
    const rows = (await q.list()).sort(SORTS[call.sort]);
    if (call.csv) {
      console.log([CSV_HEADER, ...rows.flatMap(csvRows)].join('\n'));
      return 0;
    }
    for (const a of rows) console.log(accountLine(a));
    console.log(`${rows.length} account(s)`);
    return 0;
  }
  const a = await q.show(email);
  if (!a) {
    console.error(`no account for ${email}`);
    return 1;
  }
  if (command === 'show') {
    if (call.csv) console.log([CSV_HEADER, ...csvRows(a)].join('\n'));
    else for (const line of [accountLine(a), ...a.keys.map(keyLine)]) console.log(line);
    return 0;
  }
  const { keyId } = call;
  if (keyId !== null && !a.keys.some((k) => k.id === keyId)) {
    console.error(`${email} has no key ${keyId} (npm run accounts -- show ${email} lists its keys)`);
    return 1;
  }
  const n = await q.revoke(email, keyId, Date.now());
  console.log(`revoked ${n} live key(s) of ${email}`);
  return 0;
}

/** What accept-loss says it did, or why it did nothing (exit 1). */
function acceptedLoss(r: { accepted: boolean; accounts: number; keys: number }): number {
  if (!r.accepted) {
    console.error("no gateway has found the keys' store lost: nothing to accept (GET /health says what is wrong)");
    return 1;
  }
  console.log(
    `loss accepted: new accounts start after ${r.accounts} and new keys after ${r.keys}; the gateways issue keys ` +
      'again within seconds, and a key issued before now is answered 401 saying the store lost it',
  );
  return 0;
}

async function main(): Promise<number> {
  const call = readCall(process.argv.slice(2));
  let config: Readonly<Config>;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(`configuration error: ${err.message}`);
    return 1;
  }
  if (config.redis) {
    // loaded only in this mode, as the gateway's store does (gateway/store/open.ts)
    const { openRedisClient } = await import('../gateway/store/redis/client.ts');
    const { redisAccountQueries } = await import('../gateway/store/redis/account-queries.ts');
    const client = await openRedisClient(config.redis);
    try {
      if (call.command === 'accept-loss') {
        const { acceptLoss } = await import('../gateway/store/redis/identity-scripts.ts');
        return acceptedLoss(await acceptLoss(client, config.redisPrefix, Date.now()));
      }
      return await run(redisAccountQueries(client, config.redisPrefix), call);
    } finally {
      client.disconnect();
    }
  }
  if (call.command === 'accept-loss') {
    console.error(
      'accept-loss is for a Redis store; the embedded store is one file: restore its backup (npm run backup) instead',
    );
    return 1;
  }
  // Opening creates the file: a mistyped STATE_DIR would list an empty store and leave one behind
  const file = join(config.stateDir, DB_FILE);
  if (!existsSync(file)) {
    console.error(`no store at ${file}: is STATE_DIR the gateway's? (it is created when the gateway first starts)`);
    return 1;
  }
  const db = openDatabase(config.stateDir);
  try {
    return await run(accountQueries(db), call);
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
