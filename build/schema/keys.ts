// The JSON Schemas of the key operations' bodies (docs/contract.md, Keys and registration; Getting a
// key back): what a client sends, and what it gets back. Named in responses.ts with the others.
import { EMAIL_MAX_LENGTH, RECOVERY_TOKEN_PREFIX } from '../site-format.ts';
import { exact, schemaVersion, str } from './parts.ts';

export const Registration = exact({ api_key: str, email: str, schema_version: schemaVersion });

/** A body that names an e-mail address: registering, and asking for a recovery mail. Two schemas of one
 * shape, each its own object (componentsOf names a schema by its object). */
const emailRequest = () =>
  ({
    type: 'object',
    required: ['email'],
    properties: { email: { type: 'string', maxLength: EMAIL_MAX_LENGTH, format: 'email' } },
  }) as const;

export const RegistrationRequest = emailRequest();

/** POST /api/keys/recover: the same answer whether or not an account holds the address. */
export const RecoveryAccepted = exact({
  email: { ...str, description: 'the address as read (trimmed, lower-cased)' },
  message: { ...str, description: 'what happens next; the same sentence for every address' },
  schema_version: schemaVersion,
});

export const RecoveryRequest = emailRequest();

export const RecoveryConfirmRequest = {
  type: 'object',
  required: ['token'],
  properties: {
    token: {
      type: 'string',
      pattern: `^${RECOVERY_TOKEN_PREFIX}[A-Za-z0-9_-]{32}$`,
      description: 'the token of the link in the recovery mail (its query parameter)',
    },
  },
} as const;
