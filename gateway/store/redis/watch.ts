// The gateway's look at Redis, at every (re)connection and every CHECK_MS (docs/operations.md,
// Redis in production): which server it writes to (each switch logged), whether that server is a
// primary and the one the sentinels name, whether it answers at all (a hang), may evict or keeps no
// append-only file (server-facts.ts), whether it can write (a small write), and whether its data is
// still the data this gateway wrote to (identity.ts). On every primary after the first it re-asserts
// what this gateway issued lately and the hours it saw (journal.ts), before the primary is used.
// The verdicts go to the condition (condition.ts), which /health, GET /metrics and the hot path read.
import { isIP } from 'node:net';
import { WINDOW_MS } from '../../rate-limit.ts';
import { primaryOf, type Scripted } from './client.ts';
import { isWriteRefusal, type RedisCondition } from './condition.ts';
import type { KnownIdentity } from './identity.ts';
import type { Journal } from './journal.ts';
import { redisKeys } from './key-names.ts';
import type { SentinelWatch } from './sentinel-watch.ts';
import { lookAtData, lookAtServer, type Watched } from './server-looks.ts';

/** How often the server is looked at besides each connection: a hang is named within this and a command's timeout. */
const CHECK_MS = 1_000;

const timedOut = (err: unknown) => err instanceof Error && /timed? ?out/i.test(err.message);

export interface RedisWatch {
  /** Resolves after the first look at a connected server, or after `ms` when none answers. */
  first(ms: number): Promise<void>;
  /** A key answered 201: the store must hold counts up to these from now on. */
  issued(accounts: number, keys: number): void;
  close(): void;
}

export interface WatchOptions {
  client: Scripted;
  prefix: string;
  condition: RedisCondition;
  /** Through Sentinel: what the sentinels name; a server they do not name is left. */
  sentinels: SentinelWatch | null;
  journal: Journal;
  /** The hours the gateway saw its keys reach (outage.ts). */
  windows: (now: number) => Iterable<{ key: string; start: number; count: number }>;
  minReplicas: number;
  /** Asks whether REDIS_MIN_REPLICAS replicas hold a write now (replication.ts). */
  checkReplicas: () => Promise<void>;
  /** The commands' timeout: a look unanswered this long is a hang. */
  commandTimeoutMs: number;
  clock: () => number;
  log: (fields: Record<string, unknown>) => void;
}

/**
 * Writes again on the server what this gateway issued lately (journal.ts) and every hour it saw its
 * keys reach (failover-scripts.ts, MERGE_WINDOW_SCRIPT), and logs what that mended.
 */
async function reassertAll(opts: WatchOptions, why: string, where: string | null) {
  const { client } = opts;
  const k = redisKeys(opts.prefix);
  const now = opts.clock();
  const keys = await opts.journal.reassert(client, now);
  const perKey = k.window('req', '');
  const merged = await Promise.all(
    [...opts.windows(now)].map(({ key, start, count }) => {
      const info = key.startsWith(perKey) ? k.keyInfo(key.slice(perKey.length)) : key;
      return client.mergeWindow(key, info, start, count, now, WINDOW_MS);
    }),
  );
  const windows = merged.filter((added) => added > 0).length;
  const requests = merged.reduce((sum, added) => sum + Math.max(added, 0), 0);
  opts.log({ event: 'store_reasserted', store: 'redis', primary: where, why, ...keys, windows, requests });
}

/** Through Sentinel, why the server at `where` is not the one they name, or null when it is. */
function notNamed(sentinels: SentinelWatch | null, where: string): string | null {
  const theirs = sentinels?.named() ?? null;
  // an address is compared with the connection's; a name (announce-hostnames) cannot be, and is trusted
  const comparable = theirs !== null && isIP(theirs.replace(/^\[|\]?:\d+$/g, '')) !== 0;
  return comparable && theirs !== where ? `Redis at ${where} is not the primary the sentinels name (${theirs})` : null;
}

/** What a look that failed says: a refused write, or no answer in time (a hang). */
function lookFailed(opts: WatchOptions, err: unknown, where: string) {
  const { condition } = opts;
  if (isWriteRefusal(err)) condition.writeRefused(err as Error, 'check');
  else if (timedOut(err)) {
    // connected but silent (a slow disk, a fork, a paused machine): not used until it answers
    const why = `Redis at ${where} did not answer within ${opts.commandTimeoutMs} ms`;
    if (condition.noAnswer === null) opts.log({ event: 'store_no_answer', store: 'redis', reason: why });
    condition.noAnswer = why;
  }
  // unreachable midway: the connection's events say so; the next look tries again
}

/** Runs `task` one at a time; a call during a run runs it once more after (a reconnection mid-look). */
function oneAtATime(task: () => Promise<void>) {
  let running: Promise<void> | null = null;
  let again = false;
  const soon = () => {
    if (running) {
      again = true;
      return;
    }
    running = task().finally(() => {
      running = null;
      if (again) {
        again = false;
        soon();
      }
    });
  };
  return soon;
}

export function watchRedis(opts: WatchOptions): RedisWatch {
  const { client, condition, log, sentinels } = opts;
  const k = redisKeys(opts.prefix);
  const known: KnownIdentity = { id: null, accounts: 0, keys: 0 };
  const status = condition.status;
  let looked: () => void = () => {};
  const firstLook = new Promise<void>((resolve) => {
    looked = resolve;
  });
  let closed = false;
  /** The server process whose data this gateway last saw whole: another one gets the journal. */
  let lastRunId: string | null = null;

  const reassert = (why: string) => reassertAll(opts, why, status.primary);

  const watched: Watched = {
    client,
    condition,
    known,
    k,
    sentinel: sentinels !== null,
    closed: () => closed,
    clock: opts.clock,
    log,
    minReplicas: opts.minReplicas,
    reassert,
  };

  const named = (where: string) => {
    const wrong = notNamed(sentinels, where);
    if (wrong !== null && condition.notNamed === null) log({ event: 'store_not_named', store: 'redis', reason: wrong });
    condition.notNamed = wrong;
    if (wrong !== null && !closed) client.disconnect(true);
    return wrong === null;
  };

  async function look() {
    if (!condition.connected) return;
    const where = primaryOf(client) ?? 'unknown';
    if (where !== status.primary) {
      log({ event: 'store_primary', store: 'redis', primary: where, previous: status.primary });
      status.note({ primary: where });
    }
    try {
      const facts = await lookAtServer(watched, where);
      if (condition.noAnswer !== null) log({ event: 'store_answers', store: 'redis', primary: where });
      condition.noAnswer = null;
      // nothing is written to a replica, nor to a server found evicting at the first look (start-up
      // refuses it: docs/operations.md, Redis in production)
      if (named(where) && condition.notPrimary === null && !(condition.evicting !== null && known.id === null)) {
        // the smallest write: refused with READONLY, OOM or MISCONF when the server cannot take the
        // real ones, unanswered when it pauses writes
        await client.set(k.probe, String(opts.clock()), 'PX', 60_000);
        condition.wrote();
        // data lost is not written to: the server that holds it again (restored) is met as new
        if (await lookAtData(watched, lastRunId !== null && facts.runId !== lastRunId)) lastRunId = facts.runId;
        void opts.checkReplicas();
      }
      // a connection is used only once it was looked at (condition.ts, checked)
      condition.checked = true;
    } catch (err) {
      lookFailed(opts, err, where);
    }
    condition.refresh();
    looked();
  }

  const lookSoon = oneAtATime(look);

  client.on('ready', lookSoon);
  const timer = setInterval(lookSoon, CHECK_MS);
  timer.unref();
  return {
    async first(ms) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([firstLook, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
      clearTimeout(timer);
    },
    issued(accounts, keys) {
      known.accounts = Math.max(known.accounts, accounts);
      known.keys = Math.max(known.keys, keys);
    },
    close() {
      closed = true;
      clearInterval(timer);
    },
  };
}
