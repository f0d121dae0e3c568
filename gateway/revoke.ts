// DELETE /api/keys/current (docs/contract.md, Endpoints): the key sent is revoked (204), and is
// refused from then on.
import { API_KEY_FIELD } from '../build/site-format.ts';
import { ERRORS, unknownKeyErrors } from './errors.ts';
import { failure, type Reply } from './exchange.ts';
import { hashKey, isRepeatedKey, isWellFormedKey } from './keys.ts';
import { untaggedMatchFails } from './negotiate.ts';
import { errorResponse, type GatewayRequest, response } from './responses.ts';
import type { Account, Store } from './store/types.ts';

const REVOKED = response(204, ['Cache-Control', 'no-store'], null);

export function createRevoke(opts: { store: Store }) {
  const { store } = opts;
  const unknownKey = unknownKeyErrors();
  return function revoke(req: GatewayRequest, now: number): Reply {
    const raw = req.headers[API_KEY_FIELD];
    if (raw === undefined || raw === '') return errorResponse(ERRORS.missingKey);
    if (typeof raw !== 'string' || !isWellFormedKey(raw))
      return errorResponse(isRepeatedKey(raw) ? ERRORS.repeatedKey : ERRORS.invalidKey);
    const unknown = () => errorResponse(unknownKey(store.status.keysLostSince));
    const done = (revoked: boolean) => (revoked ? REVOKED : unknown());
    try {
      // a false If-Match revokes nothing: a 412 for a live key, the 401 it would get anyway for another
      if (untaggedMatchFails(req.headers['if-match'], false)) {
        const found = store.findByKey(raw);
        const refused = (a: Account | null) => (a ? errorResponse(ERRORS.preconditionFailed) : unknown());
        return found instanceof Promise
          ? found.then(refused).catch((err: unknown) => failure(err, false))
          : refused(found);
      }
      const revoked = store.revokeKey(hashKey(raw), now);
      if (!(revoked instanceof Promise)) return done(revoked);
      return revoked.then(done).catch((err: unknown) => failure(err, false, ERRORS.cannotSaveRevocation));
    } catch (err) {
      return failure(err, false, ERRORS.cannotSaveRevocation);
    }
  };
}
