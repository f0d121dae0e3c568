// Keys verified against the store, held in process memory by the key itself, so a known key costs
// one Map lookup: no hash, no query. Two generations of at most `max` keys each: a hit in the
// older one moves the key to the newer one, and when the newer one is full the older one is
// dropped whole. That keeps every key used within the last `max` distinct keys (as an LRU of `max`
// would; at most 2 × max are held), with no bookkeeping on a hit in the newer generation
// (lru-cache reorders its list on every hit (docs/performance.md: the measurements behind the code)). Generations
// of max/2 were tried first: 100,000 accounts used in turn then missed on every request.

export interface KeyCache<V extends { keyId: string }> {
  get(key: string): V | undefined;
  set(key: string, value: V): void;
  /** Forgets the key with this id (it was revoked). */
  dropKey(keyId: string): void;
  clear(): void;
  readonly size: number;
}

export function createKeyCache<V extends { keyId: string }>(max: number): KeyCache<V> {
  const generation = Math.max(1, max);
  let young = new Map<string, V>();
  let old = new Map<string, V>();
  /** Key id → the key in either generation, so a revocation can drop it at once. */
  const keyOf = new Map<string, string>();

  const set = (key: string, value: V) => {
    if (young.size >= generation) {
      for (const [k, v] of old) if (keyOf.get(v.keyId) === k) keyOf.delete(v.keyId);
      old = young;
      young = new Map();
    }
    young.set(key, value);
    keyOf.set(value.keyId, key);
  };

  return {
    get(key) {
      const hit = young.get(key);
      if (hit !== undefined) return hit;
      const aging = old.get(key);
      if (aging !== undefined) {
        old.delete(key);
        set(key, aging);
      }
      return aging;
    },
    set,
    dropKey(id) {
      const key = keyOf.get(id);
      if (key === undefined) return;
      young.delete(key);
      old.delete(key);
      keyOf.delete(id);
    },
    clear() {
      young = new Map();
      old = new Map();
      keyOf.clear();
    },
    get size() {
      return young.size + old.size;
    },
  };
}
