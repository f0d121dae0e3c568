// What each API operation of the route table (site-format.ts) says of itself in the OpenAPI
// document: its id, tag and words, parameters and answers, as data a tag a file (the service's here).
// Paths, methods and whether a key is needed come from the table itself (openapi.ts).

import { JSON_MEDIA_TYPE, type RouteName } from '../site-format.ts';
import { dataOperations } from './openapi-data-operations.ts';
import { keyOperations } from './openapi-key-operations.ts';
import {
  errorAnswers,
  etagHeader,
  jsonBody,
  notModified,
  type Operation,
  type OperationText,
  UPSTREAM_ERRORS,
} from './openapi-parts.ts';

const openapi: Operation = {
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
};

const health: Operation = {
  operationId: 'getHealth',
  tag: 'service',
  summary: 'Liveness and the dataset version being served (no key needed)',
  description: 'Whether all is well (`status`, and `reason` when not): the store, mail, the build served, one refused.',
  responses: {
    '200': jsonBody('Health', 'serving; when status is not "ok" it names the fault, and `reason` says why'),
    ...errorAnswers(['key_in_query', 'precondition_failed']),
  },
};

/** The operations, keyed by their route's name: their words, then their parameters and answers. */
export const operations = (ids: string[], liveKeyCap: number): Partial<Record<RouteName, Operation>> => ({
  ...keyOperations(liveKeyCap),
  ...dataOperations(ids),
  openapi,
  health,
});

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
