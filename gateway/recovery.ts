// Getting a key back (docs/contract.md, Getting a key back): whoever reads the mailbox of an
// account's address can always get a key, and nobody else can lock it out.
// - POST /api/keys/recover {email} answers 202, the same status, headers and body for every
//   well-formed address, known or not; the store is asked and the mail sent only after the answer,
//   and an address no account holds causes the same work then (a decoy token row written, a mail
//   composed and written nowhere it can be read), so that not even the request sent right behind
//   it waits longer for a known one (docs/contract.md, Getting a key back).
// - The mail links to the recovery page with a single-use token (only its SHA-256 is stored), good
//   for RECOVERY_TOKEN_MINUTES and superseded by a newer one. Opening the page changes nothing
//   (mail scanners fetch links), and a dead link's page says why; its button, or
//   POST /api/keys/recover/confirm {token}, revokes every live key of the account and issues one
//   new key.
// - Limits: RECOVERY_MAILS_PER_HOUR per e-mail address, REGISTER_LIMIT_PER_HOUR per client address;
//   using a token counts as a registration attempt.
import { RECOVERY_ACCEPTED_MESSAGE, SCHEMA_VERSION } from '../build/site-format.ts';
import { ERRORS } from './errors.ts';
import { recoveryPages } from './recovery-pages.ts';
import { type RecoveryOptions, recoverySteps } from './recovery-steps.ts';
import { isJson, readBody, readEmail, readJsonString } from './request-body.ts';
import { type GatewayRequest, type GatewayResponse, jsonResponse } from './responses.ts';

export function createRecovery(opts: RecoveryOptions) {
  const steps = recoverySteps(opts);
  const { accept, useToken } = steps;

  /** POST /api/keys/recover: errors are thrown for the app to answer as JSON. */
  async function request(req: GatewayRequest, now: number): Promise<GatewayResponse> {
    if (!isJson(req)) throw ERRORS.unsupportedType;
    const email = readEmail(await readBody(req));
    await accept(req, now, email);
    return jsonResponse(
      202,
      Buffer.from(JSON.stringify({ email, message: RECOVERY_ACCEPTED_MESSAGE, schema_version: SCHEMA_VERSION })),
    );
  }

  /** POST /api/keys/recover/confirm: 201 with the new key, as registration answers. */
  async function confirm(req: GatewayRequest, now: number): Promise<GatewayResponse> {
    if (!isJson(req)) throw ERRORS.unsupportedType;
    const token = readJsonString(await readBody(req), 'token', ERRORS.badRecoveryJson);
    const r = await useToken(req, now, token);
    const body = { api_key: r.key, email: r.account.email, schema_version: SCHEMA_VERSION };
    return jsonResponse(201, Buffer.from(JSON.stringify(body)), { account: r.account.id });
  }

  return { request, confirm, page: recoveryPages(opts, steps).page };
}
