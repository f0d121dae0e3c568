// What each API operation of the route table (site-format.ts) says of itself in the OpenAPI
// document: its id, tag and words, parameters and answers. Paths, methods and whether a key is
// needed come from the table itself (openapi.ts).

import { cropYear } from '../schema/parts.ts';
import {
  API_KEY_HEADER,
  CHANGELOG_DEFAULT_LIMIT,
  CHANGELOG_MAX_LIMIT,
  CROP_YEAR_PARAM,
  JSON_MEDIA_TYPE,
  RECOVERY_MAILS_PER_HOUR,
  RECOVERY_TOKEN_MINUTES,
  ROUTES,
  type RouteName,
} from '../site-format.ts';
import {
  BODY_ERRORS,
  conditionals,
  dataOperation,
  errorAnswers,
  etagHeader,
  jsonBody,
  notModified,
  ref,
  UPSTREAM_ERRORS,
} from './openapi-parts.ts';

export interface OperationText {
  operationId: string;
  tag: 'data' | 'keys' | 'service';
  summary: string;
  description: string;
}

/** The operations, keyed by their route's name: their words, then their parameters and answers. */
export function operations(ids: string[], liveKeyCap: number) {
  const grainIdParameter = (where: 'path' | 'query', description: string) => ({
    name: 'grain_id',
    in: where,
    required: where === 'path',
    description,
    schema: { type: 'string', examples: ids },
  });
  /** `?crop_year=` (docs/contract.md, Crop years). */
  const cropYearParameter = (description: string) => ({
    name: CROP_YEAR_PARAM,
    in: 'query',
    required: false,
    description: `${description}; written 2025/26 (the slash may be sent as %2F)`,
    schema: { ...cropYear, examples: ['2025/26'] },
  });
  const ops: Partial<Record<RouteName, OperationText & Record<string, unknown>>> = {
    register: {
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
    },
    recover: {
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
    },
    recoverConfirm: {
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
    },
    revokeKey: {
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
          'missing_key',
          'invalid_key',
          'keys_lost',
          'precondition_failed',
          'store_unavailable',
          'keys_recovering',
          'cannot_save_revocation',
        ]),
      },
    },
    grains: {
      operationId: 'listGrains',
      tag: 'data',
      summary: 'List the supported grain classes',
      description: 'One summary per supported grain class, without factor data, in the dataset order.',
      ...dataOperation('GrainList'),
    },
    grain: {
      operationId: 'getGrain',
      tag: 'data',
      summary: 'One grain class with all its factor groups, factors and thresholds',
      description:
        'The grading factor table of one grain class, with the fields a program grades with; with crop_year, ' +
        'the table as it stood at the end of that crop year (1 August to 31 July), or now for the current one.',
      ...dataOperation('GrainRecord', {
        parameters: [
          grainIdParameter('path', 'matched case-insensitively'),
          cropYearParameter('a crop year the class was published for (its crop_years); without it, the current record'),
          ...conditionals,
        ],
        errors: ['bad_query', 'repeated_param', 'bad_crop_year', 'unknown_grain', 'unknown_crop_year'],
      }),
    },
    snapshot: {
      operationId: 'getSnapshot',
      tag: 'data',
      summary: 'Every record and the whole changelog, in one body',
      description:
        'What a sync needs in one request: every record, each exactly as GET /api/grains/{grain_id} serves it, ' +
        'in the list order, and every changelog entry, newest first. With crop_year, the records as they stood ' +
        'at the end of that crop year, of the classes published for it. Revalidate it with If-None-Match: a ' +
        '304 costs no quota.',
      ...dataOperation('Snapshot', {
        parameters: [
          cropYearParameter('a crop year some class was published for; without it, the current tables'),
          ...conditionals,
        ],
        errors: ['bad_query', 'repeated_param', 'bad_crop_year', 'unknown_crop_year'],
      }),
    },
    changelog: {
      operationId: 'getChangelog',
      tag: 'data',
      summary: 'Dataset updates, newest first',
      description:
        'The dataset updates, newest first (effective_date, then created_at descending); ' +
        'a client detects a change by polling it.',
      ...dataOperation('Changelog', {
        parameters: [
          grainIdParameter('query', 'keep entries affecting this class (case-insensitive)'),
          {
            name: 'limit',
            in: 'query',
            required: false,
            schema: { type: 'integer', minimum: 1, maximum: CHANGELOG_MAX_LIMIT, default: CHANGELOG_DEFAULT_LIMIT },
          },
          ...conditionals,
        ],
        errors: ['bad_query', 'repeated_param', 'bad_limit', 'unknown_grain'],
      }),
    },
    openapi: {
      operationId: 'getOpenApi',
      tag: 'service',
      summary: 'This document (no key needed)',
      description: 'The OpenAPI 3.1 document of the whole API.',
      responses: {
        '200': {
          description: 'OpenAPI 3.1 document',
          headers: etagHeader,
          content: {
            [JSON_MEDIA_TYPE]: {
              schema: {
                type: 'object',
                required: ['openapi', 'info', 'paths'],
                properties: { openapi: { const: '3.1.0' }, info: { type: 'object' }, paths: { type: 'object' } },
                description: 'this document',
              },
            },
          },
        },
        '304': notModified('not modified: the ETag sent in If-None-Match is current', etagHeader),
        ...errorAnswers(['key_in_query', 'precondition_failed', ...UPSTREAM_ERRORS]),
      },
    },
    health: {
      operationId: 'getHealth',
      tag: 'service',
      summary: 'Liveness and the dataset version being served (no key needed)',
      description:
        'Whether all is well (`status`, and `reason` when not): the store, mail, the build served, one refused.',
      responses: {
        '200': jsonBody('Health', 'serving; when status is not "ok" it names the fault, and `reason` says why'),
        ...errorAnswers(['key_in_query', 'precondition_failed']),
      },
    },
  };
  return ops;
}

/** A HEAD operation from its GET: the same parameters and answers, each without a body. */
export function headOf(get: Record<string, unknown> & Omit<OperationText, 'tag'>) {
  const responses = Object.fromEntries(
    Object.entries(get.responses as Record<string, { description: string; headers?: object }>).map(([status, r]) => [
      status,
      { description: r.description, ...(r.headers ? { headers: r.headers } : {}) },
    ]),
  );
  return {
    ...get,
    operationId: `${get.operationId}Head`,
    summary: `${get.summary}: the headers alone (HEAD)`,
    description: `The same as GET, answering its status and headers without a body. ${get.description}`,
    responses,
  };
}
