// What the gateway knows of Redis right now, and what /health, GET /metrics and the hot path make
// of it (docs/operations.md, Redis in production): connected or not, able to write or not (a
// replica, READONLY, OOM, MISCONF), evicting, its data lost. `up` (connected and writable) is a
// plain field the hot path reads on every request: while it is false, keys verified lately are
// counted in this gateway's memory, and /health says so, never silently.
import { redisUnreachable, type StoreState, StoreStatus } from '../store-status.ts';

/** Redis's answers that mean "I cannot write now", whatever the connection's health. */
const WRITE_REFUSAL = /^(READONLY|OOM|MISCONF|NOREPLICAS|NOWRITE)\b/;

export const isWriteRefusal = (err: unknown) => err instanceof Error && WRITE_REFUSAL.test(err.message);

const COUNTED_HERE =
  "recently verified keys keep working, counted in this gateway's memory until Redis can write; registration and " +
  'keys not verified lately get 503';

export class RedisCondition {
  /** Connected and writable: read on every request. */
  up = false;
  readonly status = new StoreStatus();
  connected = false;
  /** Why the connection is down, for the reason. */
  why = 'it has not answered yet';
  /** Redis's own refusal of the last write, or null. */
  cannotWrite: string | null = null;
  /** Why the server is not a primary (server-facts.ts), or null. */
  notPrimary: string | null = null;
  /** Why the server may evict keys (server-facts.ts), or null. */
  evicting: string | null = null;
  /** Why the data is lost (identity.ts), or null. */
  lost: string | null = null;
  /** Why the server is taken to hang: the last look got no answer in time (watch.ts), or null. */
  noAnswer: string | null = null;
  /** Why this server is not used though it says it is a primary: the sentinels name another, or null. */
  notNamed: string | null = null;
  /** Why registration is refused though Redis works: too few replicas for REDIS_MIN_REPLICAS, or null. */
  fewReplicas: string | null = null;
  /** Why the last WAIT fell short of REDIS_MIN_REPLICAS (replication.ts), or null. */
  notHeld: string | null = null;
  /** Through Sentinel, why the sentinels name no primary (sentinel-watch.ts), or null. */
  sentinelProblem: () => string | null = () => null;
  /**
   * Whether the server of this connection was looked at (watch.ts): until then it is not used, so
   * nothing is issued on, nor an outage's usage added to, a server that may be a replica, emptied
   * or an older copy. Cleared when the connection closes.
   */
  checked = false;

  constructor(
    private readonly log: (fields: Record<string, unknown>) => void,
    /** Told when `up` changes (outage.ts settles the requests it counted). */
    private readonly onUp: (up: boolean) => void,
  ) {
    this.refresh();
  }

  /** A write was refused by Redis (`err`): logged once, the store unavailable until a write succeeds. */
  writeRefused(err: Error, operation: string) {
    if (this.cannotWrite === null)
      this.log({ event: 'store_cannot_write', store: 'redis', operation, error: err.message });
    this.cannotWrite = err.message;
    this.refresh();
  }

  /** A write went through: a store that could not write is well again (logged once). */
  wrote() {
    if (this.cannotWrite === null) return;
    this.cannotWrite = null;
    this.log({ event: 'store_writable', store: 'redis' });
    this.refresh();
  }

  refresh() {
    const [state, reason] = this.judged();
    this.status.set(state, reason);
    const up =
      this.connected &&
      this.checked &&
      this.cannotWrite === null &&
      this.notPrimary === null &&
      this.noAnswer === null &&
      this.notNamed === null;
    if (up === this.up) return;
    this.up = up;
    this.onUp(up);
  }

  private judged(): [StoreState, string | null] {
    if (!this.connected) return ['unavailable', redisUnreachable(this.sentinelProblem() ?? this.why)];
    if (this.noAnswer !== null) return ['unavailable', `${this.noAnswer}: ${COUNTED_HERE}.`];
    if (!this.checked) return ['unavailable', redisUnreachable('connected, not yet looked at')];
    if (this.notPrimary !== null) return ['unavailable', `${this.notPrimary}. Meanwhile ${COUNTED_HERE}.`];
    if (this.notNamed !== null) return ['unavailable', `${this.notNamed}. Meanwhile ${COUNTED_HERE}.`];
    if (this.cannotWrite !== null)
      return ['unavailable', `Redis answers but cannot write (${this.cannotWrite}): ${COUNTED_HERE}.`];
    if (this.lost !== null) return ['lost', this.lost];
    if (this.evicting !== null) return ['degraded', `${this.evicting}. Until then no key is issued.`];
    if (this.fewReplicas !== null) return ['degraded', `${this.fewReplicas}. Until then no key is issued.`];
    if (this.notHeld !== null)
      return ['degraded', `${this.notHeld} (REDIS_MIN_REPLICAS): until enough do, no key is issued.`];
    return ['ok', null];
  }
}
