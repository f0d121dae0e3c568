// The two looks the watch (watch.ts) takes at Redis: at the server (server-facts.ts), and at its data
// (identity.ts). Each logs a change of verdict once and leaves the verdict in the condition.
import { randomBytes } from 'node:crypto';
import type { Scripted } from './client.ts';
import type { RedisCondition } from './condition.ts';
import { judgeIdentity, type KnownIdentity, lossSentence, readingOf } from './identity.ts';
import type { redisKeys } from './key-names.ts';
import { factsOf, judgeServer, type ServerFacts } from './server-facts.ts';

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
  /** REDIS_MIN_REPLICAS: fewer connected replicas refuse registration, and /health says so. */
  minReplicas: number;
  /** Writes again what this gateway issued lately and the windows it saw (watch.ts). */
  reassert: (why: string) => Promise<void>;
}

/** The server: primary or not, evicting or not, at risk; a demoted primary through Sentinel is let go. */
export async function lookAtServer(w: Watched, where: string): Promise<ServerFacts> {
  const { client, condition, log } = w;
  const status = condition.status;
  const facts = factsOf(await client.info());
  const j = judgeServer(facts, where);
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
  const few =
    facts.role === 'master' && facts.replicas < w.minReplicas
      ? `Redis at ${where} has ${facts.replicas} connected replica${facts.replicas === 1 ? '' : 's'} and ` +
        `REDIS_MIN_REPLICAS asks for ${w.minReplicas} to hold each new key`
      : null;
  if (few !== condition.fewReplicas)
    log({ event: 'store_replicas', store: 'redis', replicas: facts.replicas, reason: few });
  condition.fewReplicas = few;
  return facts;
}

/**
 * The data: still what this gateway wrote to (identity.ts), else flagged lost with the highest marks.
 * On a server met after another (`newPrimary`) and on a recent copy lacking what was issued, the
 * journal is re-asserted first, unless the data is lost (emptied, or another data set): then the
 * loss is named and nothing is written. Resolves with whether the data is whole.
 */
export async function lookAtData(w: Watched, newPrimary: boolean): Promise<boolean> {
  const { client, condition, log, known, k } = w;
  const status = condition.status;
  // the marks as they stand before the script runs: a key answered 201 after it was sent may
  // have been written after it read the sequences, and is no loss
  const marks = { ...known };
  const now = w.clock();
  const raw = await client.storeIdentity(
    k.marker,
    k.accountSeq,
    k.keySeq,
    k.looked,
    now,
    known.id === null ? randomBytes(12).toString('hex') : '',
  );
  if (raw[8] === '1') log({ event: 'store_identity_made', store: 'redis' });
  let v = judgeIdentity(marks, readingOf(raw), now);
  if (v.kind === 'behind' || (v.kind === 'ok' && newPrimary)) {
    // a recent copy lacking what was issued is a failover's, mended from the journal, not a loss
    await w.reassert(v.kind === 'behind' ? 'behind' : 'new primary');
    v = { ...v, kind: 'ok' };
  }
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
    return true;
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
  return false;
}
