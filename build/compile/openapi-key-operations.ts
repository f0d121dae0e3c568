// The key operations of the OpenAPI document (openapi-operations.ts puts every operation together):
// data, one constant an operation, but registration, whose words name the cap on live keys.
import {
  API_KEY_HEADER,
  JSON_MEDIA_TYPE,
  RECOVERY_MAILS_PER_HOUR,
  RECOVERY_TOKEN_MINUTES,
  ROUTES,
} from '../site-format.ts';
import { BODY_ERRORS, errorAnswers, jsonBody, type Operation, ref } from './openapi-parts.ts';

const register = (liveKeyCap: number): Operation => ({
  operationId: 'register',
  tag: 'keys',
  summary: 'Get a free API key',
  description:
    'Issues a free API key to an e-mail address; the key is shown only in this answer. Registering again ' +
    `issues another key and revokes nothing; send a live key of the same account in ${API_KEY_HEADER} to replace ` +
    `it (a rotation). An account holds at most ${liveKeyCap} live keys.`,
  requestBody: {
    required: true,
    content: { [JSON_MEDIA_TYPE]: { schema: ref('RegistrationRequest') } },
  },
  responses: {
    '201': jsonBody('Registration', 'the new key, shown only this once'),
    ...errorAnswers([
      'bad_json',
      'bad_email',
      'key_in_query',
      'repeated_key',
      'too_many_keys',
      ...BODY_ERRORS,
      'precondition_failed',
      'register_attempts_limited',
      'register_limited',
      'store_unavailable',
      'keys_recovering',
      'key_not_replicated',
      'cannot_save_keys',
    ]),
  },
});

const recover: Operation = {
  operationId: 'recoverKey',
  tag: 'keys',
  summary: 'Get a key back by mail',
  description:
    'Mails the address a link that works once, for ' +
    `${RECOVERY_TOKEN_MINUTES} minutes: using it revokes every live key of the account and issues one new key ` +
    `(POST ${ROUTES.recoverConfirm.path}, or the button on the page it opens). The answer is the same for ` +
    'every well-formed address, whether an account holds it or not, and no mail goes to one that none ' +
    `holds. At most ${RECOVERY_MAILS_PER_HOUR} mails an hour to one address; a newer link replaces an older one.`,
  requestBody: { required: true, content: { [JSON_MEDIA_TYPE]: { schema: ref('RecoveryRequest') } } },
  responses: {
    '202': jsonBody('RecoveryAccepted', 'accepted: a mail goes out when an account holds the address'),
    ...errorAnswers([
      'bad_json',
      'bad_email',
      'key_in_query',
      ...BODY_ERRORS,
      'precondition_failed',
      'recovery_address_limited',
      'recovery_mails_limited',
      'store_unavailable',
    ]),
  },
};

const recoverConfirm: Operation = {
  operationId: 'confirmKeyRecovery',
  tag: 'keys',
  summary: "Use a recovery mail's token: a new key",
  description:
    "Uses the token of a recovery mail's link: every live key of the account is revoked and one new key is " +
    'issued, shown only in this answer. A token works once, until it expires or a newer one is sent.',
  requestBody: { required: true, content: { [JSON_MEDIA_TYPE]: { schema: ref('RecoveryConfirmRequest') } } },
  responses: {
    '201': jsonBody('Registration', 'the new key, shown only this once; the earlier keys are revoked'),
    ...errorAnswers([
      'bad_recovery_json',
      'recovery_token_unknown',
      'recovery_token_used',
      'recovery_token_expired',
      'recovery_token_superseded',
      'key_in_query',
      ...BODY_ERRORS,
      'precondition_failed',
      'register_attempts_limited',
      'store_unavailable',
      'keys_recovering',
      'key_not_replicated',
      'cannot_save_keys',
    ]),
  },
};

const revokeKey: Operation = {
  operationId: 'revokeCurrentKey',
  tag: 'keys',
  summary: `Revoke the key sent in ${API_KEY_HEADER}`,
  description:
    'Revokes the key the request is sent with: from then on it is refused with 401. ' +
    'Other keys of the account go on working.',
  responses: {
    '204': { description: 'revoked' },
    ...errorAnswers([
      'key_in_query',
      'repeated_key',
      'missing_key',
      'invalid_key',
      'keys_lost',
      'precondition_failed',
      'store_unavailable',
      'keys_recovering',
      'cannot_save_revocation',
    ]),
  },
};

/** The operations of the keys tag, keyed by their route's name. */
export const keyOperations = (liveKeyCap: number) => ({
  register: register(liveKeyCap),
  recover,
  recoverConfirm,
  revokeKey,
});
