// The JSON Schemas of the service's own answers: the error body every error carries (docs/contract.md,
// Errors and HTTP) and GET /health's. Named in responses.ts with the others.
import { ERROR_CODES } from '../site-format.ts';
import { exact, nullableStr, schemaVersion, str, strEnum } from './parts.ts';

export const ErrorBody = exact({
  error: { ...str, description: 'a sentence a person can act on; it may be reworded' },
  status: { type: 'integer' },
  code: {
    type: 'string',
    enum: ERROR_CODES,
    description:
      'the kind of error, stable: a program branches on it. A later version may add a code: a client treats an ' +
      'unknown one as the status alone',
  },
  schema_version: schemaVersion,
});

export const Health = exact({
  status: {
    ...strEnum(
      'ok',
      'store_unavailable',
      'store_data_lost',
      'store_degraded',
      'build_refused',
      'site_unreadable',
      'mail_degraded',
    ),
    description:
      '"ok" only when all is well; otherwise what is wrong (the first, when several are): Redis unreachable or ' +
      "unable to write, the key store's data lost, the store unable to write (or a Redis that may evict keys), a " +
      'newer build refused, the published build unreadable, or mail (recovery links) failing to go out',
  },
  reason: {
    ...nullableStr,
    description: 'null when status is "ok"; otherwise a sentence for the operator: what is wrong and its cause',
  },
  store: {
    ...strEnum('ok', 'unavailable', 'lost', 'degraded'),
    description:
      'ok; unavailable: keys and limits cannot all be checked (Redis unreachable, or unable to write); lost: ' +
      'the key store lost its data, and waits for a restore or for the loss to be accepted; degraded: keys work, ' +
      'but registration, rotation and revocation answer 503 (the store cannot write)',
  },
  store_primary: {
    ...nullableStr,
    description:
      'the Redis server written to (host:port), as Sentinel names it after each failover; null for the embedded store',
  },
  store_warning: {
    ...nullableStr,
    description:
      'what the operator should know though all works (a Redis that keeps no append-only file and has no ' +
      'replica); else null',
  },
  mail: {
    ...strEnum('ok', 'degraded'),
    description: 'degraded: the last attempt to send a mail failed; it is retried (the recovery request was answered)',
  },
  dataset_version: { ...str, description: 'the dataset version of the build served' },
  build_id: { ...str, description: 'the build served' },
  refused_build: {
    ...exact({ build_id: str, reason: str }),
    type: ['object', 'null'],
    description: 'a newer build that could not be loaded (the previous one is served), and why; else null',
  },
  schema_version: schemaVersion,
});
