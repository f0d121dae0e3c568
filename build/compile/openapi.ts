// The OpenAPI 3.1 document of the whole API, generated from the route table (site-format.ts: the
// paths, methods, and which need a key) and the same schemas the tests validate bodies against,
// published open to additions (openapi-open.ts). Statuses and headers follow docs/contract.md;
// HEAD is declared wherever GET is.

import { componentsOf, responseSchemas } from '../schema/responses.ts';
import {
  API_KEY_HEADER,
  LIVE_KEYS_PER_ACCOUNT,
  type Method,
  ROUTE_NAMES,
  ROUTES,
  SCHEMA_VERSION,
  SLOTS,
} from '../site-format.ts';
import type { Dataset } from '../validate/validate.ts';
import { openToAdditions } from './openapi-open.ts';
import { headOf, operations } from './openapi-operations.ts';

/** Whose the tables are, and what this project does not claim about their reuse. */
export const DATA_TERMS =
  "The tables are the Canadian Grain Commission's (Official Grain Grading Guide, primary grade determination " +
  "tables), reproduced with attribution; each record's source_url links its page. Their reuse terms are the " +
  "Commission's, as its own site states them: this service names no licence for them.";

/** The table's API rows as OpenAPI paths: each method its operation, a key required where the row says. */
function paths(ids: string[]) {
  const ops = operations(ids, LIVE_KEYS_PER_ACCOUNT);
  const out: Record<string, Partial<Record<Lowercase<Method>, object>>> = {};
  for (const name of ROUTE_NAMES) {
    const row = ROUTES[name];
    if (!row.api) continue;
    const op = ops[name];
    if (!op) throw new Error(`the operation ${row.path} is not described`);
    const { tag, ...rest } = op;
    const security = row.access === 'key' ? [{ apiKey: [] }] : [];
    const described = { ...rest, tags: [tag], security };
    const item: Partial<Record<Lowercase<Method>, object>> = {};
    for (const method of row.methods) {
      item[method.toLowerCase() as Lowercase<Method>] = method === 'HEAD' ? headOf(described) : described;
    }
    out[row.path] = item;
  }
  return out;
}

export type OpenApi = ReturnType<typeof buildOpenApi>;

export function buildOpenApi(ds: Dataset) {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Grain grading tables',
      version: SCHEMA_VERSION,
      description:
        'Primary grade determination tables of the Official Grain Grading Guide, as JSON, with a changelog of ' +
        `dataset updates. Meant for periodic synchronisation: poll GET ${ROUTES.changelog.path}, send ` +
        `If-None-Match, honour Retry-After. ${DATA_TERMS}`,
      license: { name: 'MIT (the service: code and documentation; not the tables)', identifier: 'MIT' },
      contact: { name: 'The operators of this service' },
    },
    // the gateway fills the slot (gateway/site.ts): PUBLIC_URL, or the origin the document was asked from
    servers: [{ url: SLOTS.origin, description: 'this service' }],
    tags: [
      { name: 'data', description: `The grading tables and the changelog (${API_KEY_HEADER})` },
      { name: 'keys', description: 'Free self-serve API keys' },
      { name: 'service', description: 'The service itself (no key)' },
    ],
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: API_KEY_HEADER } },
      schemas: openToAdditions(componentsOf(responseSchemas)),
    },
    paths: paths(ds.grains.map((g) => g.grain_id)),
  };
}
