// POST /api/register (decisions.md §2): per-address limit, then a JSON body of at most 1 KiB, an
// object with a string `email`, trimmed and lower-cased, at most 254 characters, a pragmatic
// local@domain.tld; the key is answered only once the store holds its hash durably. An account
// holds at most MAX_LIVE_KEYS live keys; registering again issues another and revokes nothing.
import { clientAddress } from './client-address.ts';
import { ERRORS } from './errors.ts';
import { generateKey, hashKey, isWellFormedKey } from './keys.ts';
import { retryAfterSeconds } from './rate-limit.ts';
import { errorWithHeaders, type GatewayRequest, type GatewayResponse, jsonResponse } from './responses.ts';
import type { Store } from './store/types.ts';

export const MAX_BODY_BYTES = 1024;
const EMAIL = /^[a-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

export function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const type = header.split(';', 1)[0]!.trim().toLowerCase();
  return type === 'application/json';
}

export function readEmail(body: Buffer): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw ERRORS.badJson;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw ERRORS.badJson;
  const email = (parsed as { email?: unknown }).email;
  if (typeof email !== 'string') throw ERRORS.badJson;
  const normal = email.trim().toLowerCase();
  const dots = normal.includes('..') || normal.startsWith('.') || normal.includes('.@');
  if (normal.length > 254 || !EMAIL.test(normal) || dots) throw ERRORS.badEmail;
  return normal;
}

/** The registration handler; expected failures are thrown as catalogue errors for the app to answer. */
export function createRegistration(opts: { store: Store; trustProxy: number }) {
  const { store } = opts;
  return async function register(req: GatewayRequest, now: number): Promise<GatewayResponse> {
    const address = clientAddress(req.remoteAddress, req.headers['x-forwarded-for'], opts.trustProxy);
    const d = await store.registrations.hit(address, now);
    if (!d.allowed) return errorWithHeaders(ERRORS.registerLimited, ['Retry-After', String(retryAfterSeconds(d, now))]);
    const type = req.headers['content-type'];
    if (!isJsonContentType(typeof type === 'string' ? type : undefined)) throw ERRORS.unsupportedType;
    const length = req.headers['content-length'];
    if (typeof length === 'string' && Number(length) > MAX_BODY_BYTES) throw ERRORS.tooLarge;
    const email = readEmail(await req.readBody(MAX_BODY_BYTES));
    // A live key of the same account sent with the registration is replaced by the new one (a
    // rotation); any other key sent is ignored: registering revokes nothing else.
    const presented = req.headers['x-api-key'];
    const rotate = typeof presented === 'string' && isWellFormedKey(presented) ? hashKey(presented) : null;
    const key = generateKey();
    const account = await store.register(email, hashKey(key), now, rotate);
    if (account === 'too_many_keys') throw ERRORS.tooManyKeys;
    const body = Buffer.from(JSON.stringify({ api_key: key, email, schema_version: '1.0' }));
    return jsonResponse(201, body, { account: account.id });
  };
}
