// REDIS_MIN_REPLICAS (docs/operations.md, Redis in production): a new key is answered 201 only once
// that many replicas hold it, so a failover cannot take it away. The writes that issue keys go on
// a connection of their own, because Redis's WAIT blocks the connection it is sent on (the hot
// path's counting must not queue behind it) and counts the replicas that hold that connection's
// writes. Short of the replicas within WAIT_MS, the key is taken back (WITHDRAW_SCRIPT) and the
// request answered 503, so no client holds a key a failover may lose.
import { NotReplicatedError } from '../store-status.ts';
import type { Scripted } from './client.ts';

/** How long a registration waits for its replicas before it is refused. */
const WAIT_MS = 1_000;

export interface Replicated {
  /** The connection that issues keys (the store's own when no replica is asked for). */
  readonly client: Scripted;
  /**
   * After a key was written on `client`: resolves once `minReplicas` hold it; otherwise the key
   * (`hashHex`) is withdrawn, a rotated key (`rotatedKeyId`) made live again, a used recovery
   * token (`tokenHex`) made usable again, and NotReplicatedError thrown.
   */
  confirm(hashHex: string, undo: { rotatedKeyId?: string; tokenHex?: string }, now: number): Promise<void>;
}

export function replicated(opts: {
  minReplicas: number;
  client: Scripted;
  /** Makes the connection of its own (client.ts, connect), with a timeout that outlasts WAIT_MS. */
  open: (commandTimeoutMs: number) => Scripted;
  prefix: string;
  log: (fields: Record<string, unknown>) => void;
}): Replicated & { close(): void } {
  const { minReplicas, prefix } = opts;
  if (minReplicas === 0) return { client: opts.client, confirm: async () => {}, close: () => {} };
  const client = opts.open(WAIT_MS + 1_000);
  return {
    client,
    async confirm(hashHex, undo, now) {
      const held = Number(await client.wait(minReplicas, WAIT_MS));
      if (held >= minReplicas) return;
      opts.log({ event: 'key_not_replicated', store: 'redis', replicas: held, wanted: minReplicas });
      await client.withdrawKey(prefix, hashHex, undo.rotatedKeyId ?? '', undo.tokenHex ?? '', now);
      throw new NotReplicatedError(`${held} of ${minReplicas} replicas acknowledged the key within ${WAIT_MS} ms`);
    },
    close: () => client.disconnect(),
  };
}
