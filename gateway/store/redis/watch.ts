// The gateway's look at Redis, at every (re)connection and every CHECK_MS (docs/operations.md,
// Redis in production): which server it writes to (each switch logged), whether that server is a
// primary, may evict or keeps no append-only file (server-facts.ts), whether it can write (a small
// write), and whether its data is still the data this gateway wrote to (identity.ts). The verdicts
// go to the condition (condition.ts), which /health, GET /metrics and the hot path read.
import type { Scripted } from './client.ts';
import { isWriteRefusal, type RedisCondition } from './condition.ts';
import type { KnownIdentity } from './identity.ts';
import { redisKeys } from './key-names.ts';
import { lookAtData, lookAtServer, type Watched } from './server-looks.ts';

/** How often the server is looked at besides each connection: a change is noticed within this. */
const CHECK_MS = 2_000;

/** The server's address as this connection reached it: what Sentinel resolved, or REDIS_URL's. */
function primaryOf(client: Scripted) {
  const s = (client as unknown as { stream?: import('node:net').Socket }).stream;
  return s?.remoteAddress
    ? `${s.remoteAddress.includes(':') ? `[${s.remoteAddress}]` : s.remoteAddress}:${s.remotePort}`
    : null;
}

export interface RedisWatch {
  /** Resolves after the first look at a connected server, or after `ms` when none answers. */
  first(ms: number): Promise<void>;
  /** A key answered 201: the store must hold ids up to these from now on. */
  issued(accountId: string, keyId: string): void;
  close(): void;
}

export function watchRedis(opts: {
  client: Scripted;
  prefix: string;
  condition: RedisCondition;
  /** Through Sentinel: a primary found demoted is left for the one the sentinels name. */
  sentinel: boolean;
  clock: () => number;
  log: (fields: Record<string, unknown>) => void;
}): RedisWatch {
  const { client, condition, log } = opts;
  const k = redisKeys(opts.prefix);
  const known: KnownIdentity = { id: null, accounts: 0, keys: 0 };
  const status = condition.status;
  let looked: () => void = () => {};
  const firstLook = new Promise<void>((resolve) => {
    looked = resolve;
  });
  let running: Promise<void> | null = null;
  let again = false;
  let closed = false;
  const watched: Watched = { ...opts, k, known, closed: () => closed };

  async function look() {
    if (!condition.connected) return;
    const where = primaryOf(client) ?? 'unknown';
    if (where !== status.primary) {
      log({ event: 'store_primary', store: 'redis', primary: where, previous: status.primary });
      status.note({ primary: where });
    }
    try {
      await lookAtServer(watched, where);
      // nothing is written to a replica, nor to a server found evicting at the first look (start-up
      // refuses it: docs/operations.md, Redis in production)
      if (condition.notPrimary === null && !(condition.evicting !== null && known.id === null)) {
        // the smallest write: refused with READONLY, OOM or MISCONF when the server cannot take the real ones
        await client.set(k.probe, String(opts.clock()), 'PX', 60_000);
        condition.wrote();
        await lookAtData(watched);
      }
      // a connection is used only once it was looked at (condition.ts, checked)
      condition.checked = true;
    } catch (err) {
      if (isWriteRefusal(err)) condition.writeRefused(err as Error, 'check');
      // unreachable midway: the connection's events say so; the next look tries again
    }
    condition.refresh();
    looked();
  }

  /** One look at a time; a call during one runs another after it (a reconnection mid-look). */
  function lookSoon() {
    if (running) {
      again = true;
      return;
    }
    running = look().finally(() => {
      running = null;
      if (again) {
        again = false;
        lookSoon();
      }
    });
  }

  client.on('ready', lookSoon);
  const timer = setInterval(lookSoon, CHECK_MS);
  timer.unref();
  return {
    async first(ms) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([firstLook, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
      clearTimeout(timer);
    },
    issued(accountId, keyId) {
      known.accounts = Math.max(known.accounts, Number(accountId));
      known.keys = Math.max(known.keys, Number(keyId));
    },
    close() {
      closed = true;
      clearInterval(timer);
    },
  };
}
