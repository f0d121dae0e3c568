// The two looks the watch (watch.ts) takes at Redis: at the server (server-facts.ts), and at its data
// (identity.ts). Each logs a change of verdict once and leaves the verdict in the condition.
import { randomBytes } from 'node:crypto';
import type { Scripted } from './client.ts';
import type { RedisCondition } from './condition.ts';
import { judgeIdentity, type KnownIdentity, lossSentence, readingOf } from './identity.ts';
import type { redisKeys } from './key-names.ts';
import { factsOf, judgeServer } from './server-facts.ts';

/** What a look reads and where it says what it saw. */
export interface Watched {
  client: Scripted;
  condition: RedisCondition;
  /** The data's identity and the highest ids answered 201, as this gateway knows them. */
  known: KnownIdentity;
  k: ReturnType<typeof redisKeys>;
  /** Through Sentinel: a primary found demoted is left for the one the sentinels name. */
  sentinel: boolean;
  closed: () => boolean;
  clock: () => number;
  log: (fields: Record<string, unknown>) => void;
}

/** The server: primary or not, evicting or not, at risk; a demoted primary through Sentinel is let go. */
export async function lookAtServer(w: Watched, where: string) {
  const { client, condition, log } = w;
  const status = condition.status;
  const j = judgeServer(factsOf(await client.info()), where);
  for (const [field, event] of [
    ['notPrimary', 'store_not_primary'],
    ['evicting', 'store_evicting'],
  ] as const) {
    if (j[field] !== null && condition[field] === null) log({ event, store: 'redis', reason: j[field] });
    condition[field] = j[field];
  }
  if (j.notPrimary !== null && w.sentinel && !w.closed()) client.disconnect(true);
  if (j.warning !== null && status.warning === null) log({ event: 'store_at_risk', store: 'redis', reason: j.warning });
  status.note({ warning: j.warning });
}

/** The data: still what this gateway wrote to (identity.ts), else flagged lost with the highest marks. */
export async function lookAtData(w: Watched) {
  const { client, condition, log, known, k } = w;
  const status = condition.status;
  // the marks as they stand before the script runs: a key answered 201 after it was sent may
  // have been written after it read the sequences, and is no loss
  const marks = { ...known };
  const raw = await client.storeIdentity(
    k.marker,
    k.accountSeq,
    k.keySeq,
    w.clock(),
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
    w.clock(),
    seenId ?? '',
    seq ?? '0',
    keySeq ?? '0',
  );
}
