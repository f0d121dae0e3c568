// The OpenAPI 3.1 document of the whole API, generated from the same schemas the tests validate
// bodies against. Statuses and headers follow docs/contract.md.
import { componentsOf, responseSchemas } from './schema/responses.ts';
import { SCHEMA_VERSION } from './types.ts';
import type { Dataset } from './validate.ts';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const jsonBody = (schema: string, description: string) => ({
  description,
  content: { 'application/json': { schema: ref(schema) } },
});
const header = (description: string, type = 'integer') => ({ description, schema: { type } });
/** A form post's answer: the page showing the key, or the form again with the error. */
const PAGE = { schema: { type: 'string', description: 'an HTML page' } };
const withPage = <T extends { content: Record<string, unknown> }>(r: T) => ({
  ...r,
  content: { ...r.content, 'text/html': PAGE },
});

const rateHeaders = {
  'X-RateLimit-Limit': header('requests allowed per window'),
  'X-RateLimit-Remaining': header('requests left in the current window'),
  'X-RateLimit-Used': header('requests counted in the current window'),
  'X-RateLimit-Reset': header('when the window resets, in epoch seconds'),
  RateLimit: header('IETF draft form: "default";r=<remaining>;t=<seconds to reset>', 'string'),
  'RateLimit-Policy': header('IETF draft form: "default";q=<limit>;w=3600', 'string'),
};
const dataHeaders = { ETag: header('strong validator of this representation', 'string'), ...rateHeaders };

const keyInUrl = 'an API key in the URL (keys are accepted only in X-API-Key; replace such a key)';
/** UPSTREAM_URL mode: the bodies come from a static origin. */
const upstream = {
  '502': jsonBody('Error', 'UPSTREAM_URL mode: the origin holding the bodies failed'),
  '504': jsonBody('Error', 'UPSTREAM_URL mode: the origin holding the bodies did not answer in time'),
};
const storeDown = {
  ...jsonBody('Error', 'REDIS_URL mode: the key store is unavailable and this key was not verified recently'),
  headers: { 'Retry-After': header('seconds to wait') },
};
const unauthorised = {
  ...jsonBody('Error', 'missing, malformed, unknown or revoked X-API-Key; register at POST /api/register'),
  headers: { 'WWW-Authenticate': header('ApiKey realm="grain-grading-tables", header="X-API-Key"', 'string') },
};
const preconditionFailed = jsonBody('Error', 'If-Match names no current representation (strong comparison)');
const errors = {
  '401': unauthorised,
  '429': {
    ...jsonBody('Error', 'hourly limit reached'),
    headers: { 'Retry-After': header('seconds until the window resets (at least 1)'), ...rateHeaders },
  },
  ...upstream,
  '503': storeDown,
};

const conditionals = [
  { name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' } },
  { name: 'If-Match', in: 'header', required: false, schema: { type: 'string' } },
];

function dataOperation(summary: string, schema: string, extra: Record<string, unknown> = {}) {
  return {
    summary,
    security: [{ apiKey: [] }],
    parameters: conditionals,
    ...extra,
    responses: {
      '200': { ...jsonBody(schema, 'the data'), headers: dataHeaders },
      '304': {
        description:
          'not modified: the ETag sent in If-None-Match is current (not counted, and answered also when the hour is spent)',
        headers: dataHeaders,
      },
      '400': jsonBody('Error', keyInUrl),
      ...(extra.responses as object | undefined),
      '412': preconditionFailed,
      ...errors,
    },
  };
}

/** Whose the tables are, and what this project does not claim about their reuse. */
export const DATA_TERMS =
  "The tables are the Canadian Grain Commission's (Official Grain Grading Guide, primary grade determination " +
  "tables), reproduced with attribution; each record's source_url links its page. Their reuse terms are the " +
  "Commission's, as its own site states them: this service names no licence for them.";

/** What every operation says of itself, for generated clients and readers. */
const OPERATIONS: Record<string, { operationId: string; tag: string; description: string; open?: true }> = {
  'POST /api/register': {
    operationId: 'register',
    tag: 'keys',
    open: true,
    description: 'Issues a free API key to an e-mail address. The key is shown only in this answer.',
  },
  'DELETE /api/keys/current': {
    operationId: 'revokeCurrentKey',
    tag: 'keys',
    description: 'Revokes the key the request is sent with. Other keys of the account go on working.',
  },
  'GET /api/grains': {
    operationId: 'listGrains',
    tag: 'data',
    description: 'One summary per supported grain class, without factor data, in the dataset order.',
  },
  'GET /api/grains/{grain_id}': {
    operationId: 'getGrain',
    tag: 'data',
    description: 'The grading factor table of one grain class, with the fields a program grades with.',
  },
  'GET /api/changelog': {
    operationId: 'getChangelog',
    tag: 'data',
    description: 'The dataset updates, newest first; a client detects a change by polling it.',
  },
  'GET /api/openapi.json': {
    operationId: 'getOpenApi',
    tag: 'service',
    open: true,
    description: 'The OpenAPI 3.1 document of the whole API.',
  },
  'GET /health': {
    operationId: 'getHealth',
    tag: 'service',
    open: true,
    description: 'Whether all is well (`status`, and `reason` when not): the store, the build served, one refused.',
  },
};

/** Each operation gets its id, tag and description; an open one says it needs no key. */
function described(paths: Record<string, Record<string, object>>) {
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(item)) {
      const meta = OPERATIONS[`${method.toUpperCase()} ${path}`];
      if (!meta) throw new Error(`the operation ${method.toUpperCase()} ${path} is not described`);
      const { operationId, tag, description, open } = meta;
      item[method] = { operationId, tags: [tag], description, ...op, ...(open ? { security: [] } : {}) };
    }
  }
  return paths;
}

export function buildOpenApi(ds: Dataset) {
  const ids = ds.grains.map((g) => g.grain_id);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Grain grading tables',
      version: SCHEMA_VERSION,
      description:
        'Primary grade determination tables of the Official Grain Grading Guide, as JSON, with a changelog of dataset updates. ' +
        'Meant for periodic synchronisation: poll GET /api/changelog, send If-None-Match, honour Retry-After. ' +
        DATA_TERMS,
      license: { name: 'MIT (the service: code and documentation; not the tables)', identifier: 'MIT' },
      contact: { name: 'The operators of this service' },
    },
    servers: [{ url: '/', description: 'the origin that serves this document' }],
    tags: [
      { name: 'data', description: 'The grading tables and the changelog (X-API-Key)' },
      { name: 'keys', description: 'Free self-serve API keys' },
      { name: 'service', description: 'The service itself (no key)' },
    ],
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
      schemas: componentsOf(responseSchemas),
    },
    paths: described({
      '/api/register': {
        post: {
          summary:
            'Get a free API key. Registering again issues another key and revokes nothing; send a live key of ' +
            'the same account in X-API-Key to replace it (a rotation). An account holds at most 5 live keys.',
          requestBody: {
            required: true,
            content: {
              'application/json': { schema: ref('RegistrationRequest') },
              // the front door's form: answered with a page, in text/html
              'application/x-www-form-urlencoded': { schema: ref('RegistrationRequest') },
            },
          },
          responses: {
            '201': withPage(jsonBody('Registration', 'the new key, shown only this once')),
            '400': withPage(
              jsonBody(
                'Error',
                `the body is not a JSON object (or a form) with a valid e-mail address, or ${keyInUrl}`,
              ),
            ),
            '403': { description: 'a form posted from another site', content: { 'text/html': PAGE } },
            '413': withPage(jsonBody('Error', 'the body is larger than 1 KiB')),
            '409': withPage(
              jsonBody('Error', 'the account already holds 5 live keys; the sentence says how to revoke one'),
            ),
            '415': jsonBody('Error', 'the body is neither application/json nor application/x-www-form-urlencoded'),
            '429': withPage({
              ...jsonBody('Error', 'too many registrations from this address'),
              headers: { 'Retry-After': header('seconds until the window resets') },
            }),
            '503': withPage({
              ...jsonBody('Error', 'the key store is unavailable'),
              headers: { 'Retry-After': header('seconds to wait') },
            }),
          },
        },
      },
      '/api/keys/current': {
        delete: {
          summary: 'Revoke the key sent in X-API-Key: from then on it is refused with 401',
          security: [{ apiKey: [] }],
          responses: {
            '204': { description: 'revoked' },
            '400': jsonBody('Error', keyInUrl),
            '401': { ...unauthorised, description: 'missing, malformed, unknown or already revoked X-API-Key' },
            '503': storeDown,
          },
        },
      },
      '/api/grains': { get: dataOperation('List the supported grain classes (summaries, dataset order)', 'GrainList') },
      '/api/grains/{grain_id}': {
        get: dataOperation('One grain class with all its factor groups, factors and thresholds', 'GrainRecord', {
          parameters: [
            {
              name: 'grain_id',
              in: 'path',
              required: true,
              description: 'matched case-insensitively',
              schema: { type: 'string', examples: ids },
            },
            ...conditionals,
          ],
          responses: { '404': jsonBody('Error', 'unknown grain id; see GET /api/grains') },
        }),
      },
      '/api/changelog': {
        get: dataOperation('Dataset updates, newest first (effective_date, then created_at descending)', 'Changelog', {
          parameters: [
            {
              name: 'grain_id',
              in: 'query',
              required: false,
              description: 'keep entries affecting this class (case-insensitive)',
              schema: { type: 'string', examples: ids },
            },
            {
              name: 'limit',
              in: 'query',
              required: false,
              schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
            },
            ...conditionals,
          ],
          responses: {
            '400': jsonBody('Error', `limit is not an integer from 1 to 100, a parameter is repeated, or ${keyInUrl}`),
            '404': jsonBody('Error', 'unknown grain_id; see GET /api/grains'),
          },
        }),
      },
      '/api/openapi.json': {
        get: {
          summary: 'This document (no key needed)',
          responses: {
            '200': {
              description: 'OpenAPI 3.1 document',
              headers: { ETag: dataHeaders.ETag },
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    required: ['openapi', 'info', 'paths'],
                    properties: {
                      openapi: { const: '3.1.0' },
                      info: { type: 'object' },
                      paths: { type: 'object' },
                    },
                    description: 'this document',
                  },
                },
              },
            },
            '304': {
              description: 'not modified: the ETag sent in If-None-Match is current',
              headers: { ETag: dataHeaders.ETag },
            },
            '400': jsonBody('Error', keyInUrl),
            '412': preconditionFailed,
            ...upstream,
          },
        },
      },
      '/health': {
        get: {
          summary: 'Liveness and the dataset version being served (no key needed)',
          responses: {
            '200': jsonBody('Health', 'serving; when status is not "ok" it names the fault, and `reason` says why'),
            '400': jsonBody('Error', keyInUrl),
          },
        },
      },
    }),
  };
}
