// The shape of every answer the gateway gives, and the one place answers are built from parts:
// JSON bodies with their headers, and error answers prepared once per catalogue entry.
import type { Readable } from 'node:stream';
import { JSON_CONTENT_TYPE, type RouteName } from '../build/site-format.ts';
import { ERRORS, errorBody, type HttpError } from './errors.ts';

export interface GatewayRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  remoteAddress: string | undefined;
  /** Reads the body, refusing (413) beyond `limit` bytes. */
  readBody(limit: number): Promise<Buffer>;
  /** The route table's row the app matched, set once it is routed (GET /metrics labels by it). */
  row?: RouteName | undefined;
}

export interface GatewayResponse {
  status: number;
  /** Flat [name, value, …] list, as writeHead takes it. */
  headers: string[];
  /** A stream: a body read from disk as it is sent (body-reader.ts). */
  body: Buffer | Readable | null;
  /** For the log line: the account served, never its key. */
  account: string | null;
  /** UPSTREAM_URL mode: the body is this file at the origin (the headers above are ours). */
  proxy: string | null;
  /**
   * UPSTREAM_URL mode, a counted request: the answer when the origin fails it (502, 504), which
   * takes the request back from the key's hour and says so in its rate-limit headers.
   */
  upstreamFailure: ((err: HttpError) => GatewayResponse) | null;
}

/** Every response is made here, so all have one shape (one hidden class for the code that writes them). */
export const response = (
  status: number,
  headers: string[],
  body: Buffer | Readable | null,
  account: string | null = null,
  proxy: string | null = null,
  upstreamFailure: GatewayResponse['upstreamFailure'] = null,
): GatewayResponse => ({ status, headers, body, account, proxy, upstreamFailure });

/** A JSON answer that is not a precomputed body (registration, health): never stored by a cache. */
export function jsonResponse(status: number, body: Buffer, opts: { head?: boolean; account?: string | null } = {}) {
  const headers = [
    'Content-Type',
    JSON_CONTENT_TYPE,
    'Content-Length',
    String(body.length),
    'Cache-Control',
    'no-store',
  ];
  return response(status, headers, opts.head ? null : body, opts.account ?? null);
}

/**
 * An error's body, headers and plain answers (with a body, and for HEAD), built once per catalogue
 * entry: a 401 for a made-up key allocates nothing. A request adds only its own headers.
 */
interface PreparedError {
  body: Buffer;
  headers: string[];
  plain: GatewayResponse;
  head: GatewayResponse;
}
function prepare(err: HttpError): PreparedError {
  const body = errorBody(err);
  const { headers } = jsonResponse(err.status, body);
  for (const [k, v] of Object.entries(err.headers)) headers.push(k, v);
  return { body, headers, plain: response(err.status, headers, body), head: response(err.status, headers, null) };
}
/** The catalogue's errors, prepared once; an error made for one answer (withHeaders) is prepared as it comes. */
const PREPARED: ReadonlyMap<HttpError, PreparedError> = new Map(Object.values(ERRORS).map((e) => [e, prepare(e)]));

export const preparedError = (err: HttpError): PreparedError => PREPARED.get(err) ?? prepare(err);

/** The prepared answer to an error, for GET or HEAD. */
export const errorResponse = (err: HttpError, head = false): GatewayResponse =>
  head ? preparedError(err).head : preparedError(err).plain;
