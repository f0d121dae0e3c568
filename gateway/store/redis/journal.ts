// What this gateway issued and revoked lately, kept in memory to re-assert on a new primary
// (docs/operations.md, Redis in production, "A failover is not a loss"). Redis replicates
// asynchronously and Sentinel promises no more, so the replica a failover promotes may lack the
// last writes the old primary acknowledged: each gateway keeps what it answered for the last
// JOURNAL_MS and writes it again on every primary it meets after the first (watch.ts), before it
// uses that primary. The scripts are idempotent (failover-scripts.ts), so re-asserting what is
// there changes nothing. The journal dies with its gateway: REDIS_MIN_REPLICAS covers that.
import type { Scripted } from './client.ts';
import { redisKeys } from './key-names.ts';

/**
 * How long an entry is kept: far beyond a failover's window (seconds), and the bound of what a
 * primary may lack and still be called a switch rather than a loss (identity.ts, FRESH_MS).
 */
const JOURNAL_MS = 15 * 60_000;
/** A bound on memory, far above JOURNAL_MS of registrations at the registration limit. */
const MAX_ENTRIES = 200_000;

export interface IssuedKey {
  email: string;
  accountId: string;
  keyId: string;
  hashHex: string;
  createdAt: number;
  /** The sequences as the issue left them (the watch's marks). */
  accounts: number;
  keys: number;
  /** The ids of the keys the issue revoked: a rotation's one, a recovery's all. */
  revokedKeyIds: string[];
  /** The recovery token the issue used, or ''. */
  tokenHex: string;
}

type Entry = { at: number } & ({ kind: 'key'; key: IssuedKey } | { kind: 'revoke'; hashHex: string });

export interface Journal {
  issued(at: number, key: IssuedKey): void;
  revoked(at: number, hashHex: string): void;
  /** A key taken back (replication.ts): nothing of it is re-asserted. */
  withdrawn(hashHex: string): void;
  /** Writes every entry on `client`'s server, oldest first; resolves with how many keys were missing. */
  reassert(client: Scripted, now: number): Promise<{ keys: number; restored: number; revoked: number }>;
  readonly size: number;
}

export function createJournal(prefix: string): Journal {
  const k = redisKeys(prefix);
  let entries: Entry[] = [];
  const prune = (now: number) => {
    let drop = 0;
    while (drop < entries.length && (entries[drop]!.at < now - JOURNAL_MS || entries.length - drop > MAX_ENTRIES))
      drop++;
    if (drop > 0) entries = entries.slice(drop);
  };
  return {
    issued(at, key) {
      prune(at);
      entries.push({ at, kind: 'key', key });
    },
    revoked(at, hashHex) {
      prune(at);
      entries.push({ at, kind: 'revoke', hashHex });
    },
    withdrawn(hashHex) {
      entries = entries.filter((e) => e.kind !== 'key' || e.key.hashHex !== hashHex);
    },
    async reassert(client, now) {
      prune(now);
      const batch = entries;
      // in order, each its own script: a revocation must follow the issue it revokes
      const results = await Promise.all(
        batch.map((e) =>
          e.kind === 'key'
            ? client.reassertKey(
                prefix,
                e.key.email,
                e.key.accountId,
                e.key.keyId,
                e.key.hashHex,
                e.key.createdAt,
                e.key.accounts,
                e.key.keys,
                e.key.revokedKeyIds.join(','),
                e.key.tokenHex,
                now,
              )
            : client.revokeKey(k.key(e.hashHex), e.at, prefix, e.hashHex),
        ),
      );
      let restored = 0;
      let revoked = 0;
      batch.forEach((e, i) => {
        if (Number(results[i]) !== 1) return;
        if (e.kind === 'key') restored++;
        else revoked++;
      });
      return { keys: batch.filter((e) => e.kind === 'key').length, restored, revoked };
    },
    get size() {
      return entries.length;
    },
  };
}
