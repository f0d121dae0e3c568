// Whether the data in Redis is still the data this gateway wrote to (docs/operations.md, Redis in
// production, "Lost data"): a pure judgement of what identity-scripts.ts reads, so each case is a
// table row in test/redis-identity.test.ts. A gateway knows the store's id once it has seen it,
// and the highest account and key counts it answered 201 for; an emptied Redis has no marker, one
// restored from an older copy has counts below those marks and an old last look. A failover's new
// primary may have counts below them too, but a recent last look: that is a switch, whose missing
// writes the gateways re-assert (journal.ts), not a loss.

/** What IDENTITY_SCRIPT read. */
export interface IdentityReading {
  id: string;
  state: string;
  acceptedLossAt: number | null;
  /** The high-water marks a loss flag holds (0 without one). */
  lostAccounts: number;
  lostKeys: number;
  since: number | null;
  seq: number;
  keySeq: number;
  /** When a gateway last looked at this data, before this look (null: never). */
  looked: number | null;
}

/**
 * How recent a copy with fewer accounts or keys than this gateway issued may be and still be a
 * failover's new primary (a switch: the gateways re-assert what it lacks, journal.ts) rather than a
 * copy restored from an older backup (a loss). Below the journal's span (JOURNAL_MS), so whatever
 * such a copy lacks is still in the journals.
 */
const FRESH_MS = 10 * 60_000;

/** What this gateway knows of the store: its id (null before the first reading) and its marks. */
export interface KnownIdentity {
  id: string | null;
  accounts: number;
  keys: number;
}

type LossCause = 'emptied' | 'replaced' | 'older' | 'flagged';

export type IdentityVerdict =
  | { kind: 'ok'; id: string; acceptedLossAt: number | null }
  /** Fewer accounts or keys than were issued, in a recent copy: a failover's, which the journals mend. */
  | { kind: 'behind'; id: string; acceptedLossAt: number | null }
  | { kind: 'lost'; cause: LossCause; id: string; accounts: number; keys: number; since: number | null };

export function readingOf(raw: string[]): IdentityReading {
  const n = (v: string | undefined) => (v ? Number(v) : 0);
  return {
    id: raw[0] ?? '',
    state: raw[1] ?? '',
    acceptedLossAt: raw[2] ? Number(raw[2]) : null,
    lostAccounts: n(raw[3]),
    lostKeys: n(raw[4]),
    since: raw[5] ? Number(raw[5]) : null,
    seq: n(raw[6]),
    keySeq: n(raw[7]),
    looked: raw[9] ? Number(raw[9]) : null,
  };
}

export function judgeIdentity(known: KnownIdentity, r: IdentityReading, now: number): IdentityVerdict {
  const lost = (cause: LossCause, id: string): IdentityVerdict => ({
    kind: 'lost',
    cause,
    id,
    accounts: Math.max(known.accounts, r.lostAccounts),
    keys: Math.max(known.keys, r.lostKeys),
    since: r.since,
  });
  if (r.state === 'lost') return lost('flagged', r.id);
  if (known.id === null) return { kind: 'ok', id: r.id, acceptedLossAt: r.acceptedLossAt };
  if (r.id === '') return lost('emptied', known.id);
  // a new identity is an accepted loss only when it says so; else it is another data set (a Redis
  // emptied and started on by a gateway that had not seen the old one)
  if (r.id !== known.id) {
    return r.acceptedLossAt !== null
      ? { kind: 'ok', id: r.id, acceptedLossAt: r.acceptedLossAt }
      : lost('replaced', known.id);
  }
  if (r.seq < known.accounts || r.keySeq < known.keys)
    return r.looked !== null && r.looked >= now - FRESH_MS
      ? { kind: 'behind', id: r.id, acceptedLossAt: r.acceptedLossAt }
      : lost('older', known.id);
  return { kind: 'ok', id: r.id, acceptedLossAt: r.acceptedLossAt };
}

/** The operator's sentence for a loss (/health's reason, the log). */
export function lossSentence(v: Extract<IdentityVerdict, { kind: 'lost' }>): string {
  const what: Record<LossCause, string> = {
    emptied: "Redis no longer holds the keys' store (restarted empty, or flushed)",
    replaced: 'Redis holds another data set than the one this gateway wrote to',
    older:
      `Redis holds an older copy of the keys' store (${v.accounts} accounts and ${v.keys} keys were issued, ` +
      'fewer are there, and no gateway looked at this copy in the last 10 minutes: restored from an older backup, ' +
      'or a replica promoted long after it stopped following its primary)',
    flagged: "a gateway found the keys' store lost",
  };
  return (
    `${what[v.cause]}. No key is issued and a key not found is answered 503 until the store is restored from ` +
    "Redis's files (the gateways see it by themselves) or the loss is accepted (npm run accounts -- accept-loss)."
  );
}
