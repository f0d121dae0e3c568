// Verified keys, so the hot path neither hashes nor queries the file (docs/performance.md: the
// measurements behind the code), and which key hashes exist, so an unknown key costs a hash and no
// query (key-filter.ts). The store's own replacements drop the old key at once; a write by another
// process (npm run accounts -- revoke) changes PRAGMA data_version, which is polled, and empties the
// cache. Keys live here in memory only, as they do while a request is handled.
import type Database from 'better-sqlite3';
import type { Account } from '../types.ts';
import { createKeyCache } from './key-cache.ts';
import { createKeyFilter } from './key-filter.ts';

export interface IssuedKeysOptions {
  /** The live keys' hashes. */
  allHashes: Database.Statement<[], Buffer>;
  /** Verified keys held in memory (an LRU); unknown keys are never cached. */
  maxCachedKeys?: number;
  /** How often another process's writes are looked for; bounds revocation delay. */
  externalWritePollMs?: number;
}

export function issuedKeys(db: Database.Database, opts: IssuedKeysOptions) {
  const verified = createKeyCache<Account>(opts.maxCachedKeys ?? 100_000);
  const issuedDigests = function* () {
    for (const h of opts.allHashes.iterate()) yield h.toString('latin1');
  };
  let issued = createKeyFilter(issuedDigests());
  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  let seenVersion = dataVersion.get();
  const watchWrites = setInterval(() => {
    try {
      const v = dataVersion.get();
      if (v !== seenVersion) {
        issued = createKeyFilter(issuedDigests());
        seenVersion = v;
        verified.clear();
      }
    } catch {
      // a file the system cannot read now: looked at again next round, never a crash
    }
  }, opts.externalWritePollMs ?? 250);
  watchWrites.unref();
  return {
    verified,
    mightHold: (digest: string) => issued.mightHold(digest),
    add: (digest: string) => issued.add(digest),
    stop: () => clearInterval(watchWrites),
  };
}
