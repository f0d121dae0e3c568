// The first 32 bits of every stored key hash, in an open-addressing table, so a well-formed key
// that was never issued is refused after hashing it, without a query (a probe costs a small
// fraction of the query (docs/performance.md: the measurements behind the code)). A match is only a hint: the
// store still asks the file, so a false positive (about n in 2^32) or a hash left behind by a
// replaced key costs one query, never a wrong answer.

const EMPTY = 0;

export interface KeyFilter {
  /** A key digest as hashKey gives it (32 bytes as a binary string). */
  add(digest: string): void;
  mightHold(digest: string): boolean;
  readonly size: number;
}

/**
 * The first 4 bytes of a digest as an unsigned number, read from its characters (no Buffer). 0
 * marks an empty slot, so a prefix of 0 is stored as 1 (one more false positive, no miss).
 */
export const prefixOf = (digest: string) =>
  ((digest.charCodeAt(0) << 24) | (digest.charCodeAt(1) << 16) | (digest.charCodeAt(2) << 8) | digest.charCodeAt(3)) >>>
    0 || 1;

export function createKeyFilter(digests: Iterable<string> = []): KeyFilter {
  let slots = new Uint32Array(1024);
  let mask = slots.length - 1;
  let size = 0;

  const insert = (prefix: number) => {
    // the prefix is already uniformly spread: it is part of a SHA-256
    for (let i = prefix & mask; ; i = (i + 1) & mask) {
      if (slots[i] === prefix) return;
      if (slots[i] === EMPTY) {
        slots[i] = prefix;
        size++;
        return;
      }
    }
  };
  const grow = () => {
    const old = slots;
    slots = new Uint32Array(old.length * 2);
    mask = slots.length - 1;
    size = 0;
    for (const p of old) if (p !== EMPTY) insert(p);
  };
  const add = (digest: string) => {
    if ((size + 1) * 2 > slots.length) grow(); // at most half full: probes stay short
    insert(prefixOf(digest));
  };
  for (const d of digests) add(d);

  return {
    add,
    mightHold(digest) {
      const prefix = prefixOf(digest);
      for (let i = prefix & mask; ; i = (i + 1) & mask) {
        if (slots[i] === prefix) return true;
        if (slots[i] === EMPTY) return false;
      }
    },
    get size() {
      return size;
    },
  };
}
