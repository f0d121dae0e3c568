// The gateway's look at Redis, at every (re)connection and every CHECK_MS (docs/operations.md,
// Redis in production): which server it writes to (each switch logged), whether that server is a
// primary, may evict or keeps no append-only file (server-facts.ts), whether it can write (a small
// write), and whether its data is still the data this gateway wrote to (identity.ts). The verdicts
// go to the condition (condition.ts), which /health, GET /metrics and the hot path read.
import { randomBytes } from 'node:crypto';
import type { Scripted } from './client.ts';
import { isWriteRefusal, type RedisCondition } from './condition.ts';
import { judgeIdentity, type KnownIdentity, lossSentence, readingOf } from './identity.ts';
import { redisKeys } from './key-names.ts';
import { factsOf, judgeServer } from './server-facts.ts';

/** How often the server is looked at besides each connection: a change is noticed within this. */
const CHECK_MS = 2_000;

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

  /** The server's address as this connection reached it: what Sentinel resolved, or REDIS_URL's. */
  const primaryOf = () => {
    const s = (client as unknown as { stream?: import('node:net').Socket }).stream;
    return s?.remoteAddress
      ? `${s.remoteAddress.includes(':') ? `[${s.remoteAddress}]` : s.remoteAddress}:${s.remotePort}`
      : null;
  };

  async function lookAtServer(where: string) {
    const j = judgeServer(factsOf(await client.info()), where);
    for (const [field, event] of [
      ['notPrimary', 'store_not_primary'],
      ['evicting', 'store_evicting'],
    ] as const) {
      if (j[field] !== null && condition[field] === null) log({ event, store: 'redis', reason: j[field] });
      condition[field] = j[field];
    }
    if (j.notPrimary !== null && opts.sentinel && !closed) client.disconnect(true);
    if (j.warning !== null && status.warning === null)
      log({ event: 'store_at_risk', store: 'redis', reason: j.warning });
    status.note({ warning: j.warning });
  }

  async function lookAtData() {
    // the marks as they stand before the script runs: a key answered 201 after it was sent may
    // have been written after it read the sequences, and is no loss
    const marks = { ...known };
    const raw = await client.storeIdentity(
      k.marker,
      k.accountSeq,
      k.keySeq,
      opts.clock(),
      known.id === null ? randomBytes(12).toString('hex') : '',
    );
    if (raw[8] === '1') log({ event: 'store_identity_made', store: 'redis' });
    const v = judgeIdentity(marks, readingOf(raw));
    if (v.id !== known.id && v.kind === 'ok' && known.id !== null) {
      // an accepted loss: its sequences start past the lost data's, so the old marks mean nothing
      known.accounts = 0;
      known.keys = 0;
    }
    known.id = v.id;
    if (v.kind === 'ok') {
      if (condition.lost !== null)
        log({ event: v.acceptedLossAt === null ? 'store_restored' : 'store_loss_accepted', store: 'redis' });
      condition.lost = null;
      status.note({ keysLostSince: v.acceptedLossAt });
      return;
    }
    known.accounts = Math.max(known.accounts, v.accounts);
    known.keys = Math.max(known.keys, v.keys);
    const sentence = lossSentence(v);
    if (condition.lost === null) log({ event: 'store_data_lost', store: 'redis', cause: v.cause, reason: sentence });
    condition.lost = sentence;
    // flagged here or by another gateway: the flag keeps the highest marks of them all, so an
    // accepted loss moves the sequences past every id any gateway issued
    const [seenId, , , , , , seq, keySeq] = raw;
    await client.flagLoss(
      k.marker,
      k.accountSeq,
      k.keySeq,
      v.id,
      known.accounts,
      known.keys,
      opts.clock(),
      seenId ?? '',
      seq ?? '0',
      keySeq ?? '0',
    );
  }

  async function look() {
    if (!condition.connected) return;
    const where = primaryOf() ?? 'unknown';
    if (where !== status.primary) {
      log({ event: 'store_primary', store: 'redis', primary: where, previous: status.primary });
      status.note({ primary: where });
    }
    try {
      await lookAtServer(where);
      // nothing is written to a replica, nor to a server found evicting at the first look (start-up
      // refuses it: docs/operations.md, Redis in production)
      if (condition.notPrimary === null && !(condition.evicting !== null && known.id === null)) {
        // the smallest write: refused with READONLY, OOM or MISCONF when the server cannot take the real ones
        await client.set(k.probe, String(opts.clock()), 'PX', 60_000);
        condition.wrote();
        await lookAtData();
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
