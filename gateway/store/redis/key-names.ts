// The Redis store's key names under a deployment's prefix, each built here once: the store, its
// limiter, outage tracking, recovery, migration and the operators' queries ask these. The Lua
// scripts (scripts.ts, recovery-scripts.ts) build the keys they reach from the prefix in ARGV,
// with the same names, which their comments list (`keys:<account id>` and `recovery-latest:<account
// id>` only the scripts touch).
export function redisKeys(prefix: string) {
  return {
    prefix,
    /** email → account id */
    email: (email: string) => `${prefix}email:${email}`,
    /** {email, created_at} */
    account: (id: string) => `${prefix}account:${id}`,
    /** Every key id the account was issued (a set). */
    accountKeys: (id: string) => `${prefix}account-keys:${id}`,
    /** A live key by its SHA-256 hex. */
    key: (hex: string) => `${prefix}key:${hex}`,
    keyInfo: (keyId: string) => `${prefix}keyinfo:${keyId}`,
    /** A window's hour: a key's (req) or an address's (reg, att, rml, rad). */
    window: (kind: string, subject: string) => `${prefix}window:${kind}:${subject}`,
    recovery: (hex: string) => `${prefix}recovery:${hex}`,
    accounts: `${prefix}accounts`,
    liveKeys: `${prefix}live-keys`,
    accountSeq: `${prefix}seq`,
    keySeq: `${prefix}seq:key`,
    /** The channel revocations are announced on. */
    revoked: `${prefix}revoked`,
    /** The store's identity, or the flag of its loss (identity-scripts.ts). */
    marker: `${prefix}store`,
    /** When a gateway last looked at the data (identity-scripts.ts): how recent a copy it is. */
    looked: `${prefix}looked`,
    /** What the gateways' look at Redis writes, to learn whether it can (watch.ts). */
    probe: `${prefix}probe`,
  };
}

/**
 * A live key's entry, "<account>\t<key id>\t<email>"; before keys had ids of their own,
 * "<account>\t<email>", the key's id the account's.
 */
export function parseKeyEntry(value: string): { id: string; keyId: string; email: string } {
  const fields = value.split('\t');
  return fields.length >= 3
    ? { id: fields[0]!, keyId: fields[1]!, email: fields.slice(2).join('\t') }
    : { id: fields[0]!, keyId: fields[0]!, email: fields[1] ?? '' };
}
