// REDIS_MIN_REPLICAS (docs/operations.md, Redis in production): a new key is answered 201 only once
// that many replicas hold it, so a failover cannot take it away. The writes that issue keys go on
// a connection of their own, because Redis's WAIT blocks the connection it is sent on (the hot
// path's counting must not queue behind it) and counts the replicas that hold that connection's
// writes. They go in batches: the writes asked for while a batch waits are sent together after it,
// then one WAIT covers them all, so a WAIT never queues behind another on the connection and no
// command waits there long enough to time out. A key its replicas did not acknowledge in time, or
// whose WAIT failed, is taken back (WITHDRAW_SCRIPT) and its request answered 503, so no client
// holds a key a failover may lose, and a rotated key or the keys a recovery revoked are live again.
import { NotReplicatedError, StoreUnavailableError } from '../store-status.ts';
import { primaryOf, type Scripted } from './client.ts';

/** How long a registration waits for its replicas before it is refused. */
const WAIT_MS = 1_000;

/** What taking a key back restores: the keys its issue revoked, the recovery token it used. */
interface Undo {
  /** The new key's id (not a secret): named in the log if it cannot be taken back. */
  keyId: string;
  hashHex: string;
  revokedKeyIds: string[];
  tokenHex: string;
}

export interface Issuing {
  /**
   * Runs `write` (a script that issues a key) on the issuing connection and resolves with its
   * answer once `minReplicas` replicas hold it; `undo` says from that answer how to take the key
   * back (null: no key was issued). Short of the replicas, the key is taken back and
   * NotReplicatedError thrown.
   */
  issue<T>(
    write: (client: Scripted) => Promise<T>,
    undo: (answer: T) => Undo | null,
    now: number,
  ): Promise<[answer: T, server: string | null]>;
  /** Asks whether enough replicas hold a write now (onHeld says), unless keys being sent just did. */
  check(): Promise<void>;
  /** The connections of its own (none with REDIS_MIN_REPLICAS 0), for a switch to move. */
  connections(): Scripted[];
  close(): void;
}

interface Job {
  write: (client: Scripted) => Promise<unknown>;
  undo: (answer: unknown) => Undo | null;
  now: number;
  resolve: (answer: [unknown, string | null]) => void;
  reject: (err: unknown) => void;
}

/** Why `n` replicas (-1: they could not be asked) fall short of `minReplicas`, or null. */
function shortOf(n: number, minReplicas: number): string | null {
  if (n >= minReplicas) return null;
  if (n < 0) return 'the replicas could not be asked whether they hold new keys';
  return `${n} of ${minReplicas} replicas acknowledged a write within ${WAIT_MS} ms`;
}

/** Takes a key back; on the issuing connection, else the store's own (`clients`, in that order). */
async function withdrawKey(
  clients: [Scripted, Scripted],
  prefix: string,
  u: Undo,
  now: number,
  log: (fields: Record<string, unknown>) => void,
) {
  const args = [prefix, u.hashHex, u.revokedKeyIds.join(','), u.tokenHex, now] as const;
  try {
    await clients[0].withdrawKey(...args).catch(() => clients[1].withdrawKey(...args));
  } catch (err) {
    // the key stays issued to nobody (its answer was a 503): named so an operator can revoke it
    log({ event: 'key_withdraw_failed', store: 'redis', key_id: u.keyId, error: (err as Error).message });
  }
}

/** REDIS_MIN_REPLICAS 0: a key is written on the store's own connection and answered at once. */
function direct(client: Scripted): Issuing {
  return {
    issue: async (write) => [await write(client), primaryOf(client)],
    check: async () => {},
    connections: () => [],
    close: () => {},
  };
}

export function issuing(opts: {
  minReplicas: number;
  client: Scripted;
  /** Makes the connection of its own (client.ts, connect), with a timeout that outlasts WAIT_MS. */
  open: (commandTimeoutMs: number) => Scripted;
  prefix: string;
  log: (fields: Record<string, unknown>) => void;
  /** Told after each WAIT: why too few replicas hold the writes, or null when enough do (/health). */
  onHeld: (short: string | null) => void;
}): Issuing {
  const { minReplicas, prefix, log } = opts;
  if (minReplicas === 0) return direct(opts.client);
  const client = opts.open(WAIT_MS + 1_000);
  let queued: Job[] = [];
  let sending = false;
  let checkRun: Promise<void> | null = null;
  const held = (n: number) => {
    opts.onHeld(shortOf(n, minReplicas));
    return n;
  };

  const withdraw = (u: Undo, now: number) => withdrawKey([client, opts.client], prefix, u, now, log);

  async function send(batch: Job[]) {
    const answers = await Promise.allSettled(batch.map((j) => j.write(client)));
    const server = primaryOf(client);
    const written = batch.flatMap((j, i) => {
      const a = answers[i]!;
      if (a.status === 'rejected') {
        j.reject(a.reason);
        return [];
      }
      const undo = j.undo(a.value);
      if (undo === null) {
        j.resolve([a.value, server]);
        return [];
      }
      return [{ job: j, answer: a.value, undo }];
    });
    if (written.length === 0) return;
    const n = held(await client.wait(minReplicas, WAIT_MS).then(Number, () => -1));
    if (n >= minReplicas) {
      for (const w of written) w.job.resolve([w.answer, server]);
      return;
    }
    log({ event: 'key_not_replicated', store: 'redis', keys: written.length, replicas: n, wanted: minReplicas });
    await Promise.all(written.map((w) => withdraw(w.undo, w.job.now)));
    for (const w of written)
      w.job.reject(
        n < 0
          ? new StoreUnavailableError('the replicas could not be asked')
          : new NotReplicatedError(`${n} of ${minReplicas} replicas acknowledged the key within ${WAIT_MS} ms`),
      );
  }

  async function drain() {
    sending = true;
    try {
      // a check's WAIT holds the connection: the keys' own WAIT must not time out queued behind it
      await checkRun;
      while (queued.length) {
        const batch = queued;
        queued = [];
        await send(batch).catch((err: unknown) => {
          for (const j of batch) j.reject(err); // a job already settled stays as it was
        });
      }
    } finally {
      sending = false;
    }
  }

  return {
    issue<T>(write: (c: Scripted) => Promise<T>, undo: (answer: T) => Undo | null, now: number) {
      return new Promise<[T, string | null]>((resolve, reject) => {
        queued.push({ write, undo: undo as Job['undo'], now, resolve: resolve as Job['resolve'], reject });
        if (!sending) void drain();
      });
    },
    async check() {
      // while keys are being sent their own WAITs answer this; else a small write asks it (the watch's
      // look, every second), so /health knows before a registration is refused
      if (sending || checkRun !== null || client.status !== 'ready') return;
      checkRun = (async () => {
        await client.set(`${prefix}probe:replicas`, '1', 'PX', 60_000).catch(() => {});
        held(await client.wait(minReplicas, WAIT_MS).then(Number, () => -1));
      })().finally(() => {
        checkRun = null;
      });
      await checkRun;
    },
    connections: () => [client],
    close: () => client.disconnect(),
  };
}
