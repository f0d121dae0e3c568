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
    ...strEnum('ok', 'store_unavailable', 'store_degraded', 'build_refused', 'site_unreadable', 'mail_degraded'),
    description:
      '"ok" only when all is well; otherwise what is wrong (the first, when several are): Redis unreachable, ' +
      'the embedded store unable to write, a newer build refused, the published build unreadable, or mail ' +
      '(recovery links) failing to go out',
  },
  reason: {
    ...nullableStr,
    description: 'null when status is "ok"; otherwise a sentence for the operator: what is wrong and its cause',
  },
  store: {
    ...strEnum('ok', 'unavailable', 'degraded'),
    description:
      'ok; unavailable: keys and limits cannot all be checked (Redis unreachable); degraded: keys work, ' +
      'but registration, rotation and revocation answer 503 (the store cannot write)',
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
