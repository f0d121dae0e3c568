// Whether the store can be used right now, and why not (docs/operations.md, "When something goes
// wrong"): read by /health and GET /metrics, changed by the stores. A store that cannot write (no
// space, a read-only or failing file system, a file locked past the busy timeout) refuses what
// must write with a 503 and keeps answering reads; the next write that succeeds clears it.

export type StoreState = 'ok' | 'unavailable' | 'degraded' | 'lost';

/** Why a write failed, as GET /metrics labels it. */
export type WriteFailure = 'no_space' | 'read_only' | 'io_error' | 'busy';
export const WRITE_FAILURES: readonly WriteFailure[] = ['no_space', 'read_only', 'io_error', 'busy'];

/** The store cannot be reached (Redis) or used: whatever needs it answers 503. */
export class StoreUnavailableError extends Error {}

/** The error a store throws when a command could not be run, with the cause's message. */
export const unavailable = (err: unknown) =>
  new StoreUnavailableError(err instanceof Error ? err.message : String(err));

/**
 * The store lost its data and is waiting for a restore or for the operator to accept the loss
 * (docs/operations.md, Redis in production): nothing is issued, a key not found is answered 503.
 */
export class StoreLostError extends StoreUnavailableError {}

/** Too few replicas acknowledged a new key in time (REDIS_MIN_REPLICAS): it was taken back. */
export class NotReplicatedError extends StoreUnavailableError {}

/** The store answered but could not write: what must write answers 503, reads go on. */
export class StoreWriteError extends StoreUnavailableError {
  constructor(
    readonly failure: WriteFailure,
    message: string,
  ) {
    super(message);
  }
}

/** The sentence /health gives for each kind of write failure; the SQLite error follows it. */
const WHY: Record<WriteFailure, string> = {
  no_space: 'the file system under STATE_DIR is full',
  read_only: 'the file system under STATE_DIR is read-only',
  io_error: 'the file system under STATE_DIR reports an I/O error',
  busy: 'another program held the store file locked for longer than 5 s',
};

/**
 * The kind of a SQLite error that means the file cannot be written now, or null for any other
 * error (a bug: it stays a 500). better-sqlite3 names them by SQLite's extended result codes.
 */
export function writeFailureOf(err: unknown): WriteFailure | null {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return null;
  if (code === 'SQLITE_FULL') return 'no_space';
  if (code.startsWith('SQLITE_READONLY')) return 'read_only';
  if (code.startsWith('SQLITE_IOERR') || code.startsWith('SQLITE_CANTOPEN') || code === 'SQLITE_CORRUPT')
    return 'io_error';
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return 'busy';
  return null;
}

/** /health's sentence while Redis cannot be reached. */
export const redisUnreachable = (why?: string) =>
  `Redis is unreachable${why ? ` (${why})` : ''}: recently verified keys keep working; registration and ` +
  'keys not verified lately get 503 until it is back.';

/** Free bytes under STATE_DIR before a store that ran out of space says it is well again. */
const ROOM_TO_RECOVER = 1 << 20;

export class StoreStatus {
  state: StoreState = 'ok';
  /** A sentence for the operator while the state is not ok; null when it is. */
  reason: string | null = null;
  /** Changes with every change of state, reason, warning or primary, so /health rebuilds its body only then. */
  version = 0;
  /** What the operator should know though all works (Redis keeping no append-only file), else null. */
  warning: string | null = null;
  /** The Redis server written to (host:port), for /health and the log; null for SQLite or while unknown. */
  primary: string | null = null;
  /**
   * When an operator accepted a loss of the keys' store (docs/operations.md, Redis in production):
   * a key not found is then answered with a 401 that says keys issued before it were lost.
   */
  keysLostSince: number | null = null;
  /** Writes that failed since the process started, by kind (GET /metrics). */
  readonly writeFailures: Record<WriteFailure, number> = { no_space: 0, read_only: 0, io_error: 0, busy: 0 };

  private lastFailure: WriteFailure | null = null;

  constructor(private readonly log?: (event: Record<string, unknown>) => void) {}

  set(state: StoreState, reason: string | null) {
    if (state === this.state && reason === this.reason) return;
    this.state = state;
    this.reason = reason;
    this.version++;
  }

  /** Sets what /health says beside the state: the warning, the primary, an accepted loss's time. */
  note(fields: { warning?: string | null; primary?: string | null; keysLostSince?: number | null }) {
    const next = { warning: this.warning, primary: this.primary, keysLostSince: this.keysLostSince, ...fields };
    if (next.warning === this.warning && next.primary === this.primary && next.keysLostSince === this.keysLostSince)
      return;
    Object.assign(this, next);
    this.version++;
  }

  /**
   * A write failed with `err`: counted, the state becomes degraded (logged once, when it does),
   * and a StoreWriteError is returned for the caller to throw; any other error is returned as is.
   */
  writeFailed(err: unknown, operation: string): unknown {
    const failure = writeFailureOf(err);
    if (failure === null) return err;
    this.writeFailures[failure]++;
    this.lastFailure = failure;
    const message = (err as Error).message;
    const reason = `The store cannot write: ${WHY[failure]} (${message}). Keys already issued keep working.`;
    if (this.state !== 'degraded') this.log?.({ event: 'store_cannot_write', failure, operation, error: message });
    this.set('degraded', reason);
    return new StoreWriteError(failure, reason);
  }

  /**
   * A write succeeded: a degraded store is well again (logged once). After no space, only once the
   * file system has room again (`freeBytes`): SQLite can fit a small write into space a failed one
   * took, and a store that says well between two refusals would only confuse the operator.
   */
  wrote(freeBytes?: () => number) {
    if (this.state !== 'degraded') return;
    if (this.lastFailure === 'no_space' && freeBytes && freeBytes() < ROOM_TO_RECOVER) return;
    this.set('ok', null);
    this.log?.({ event: 'store_writable' });
  }
}
