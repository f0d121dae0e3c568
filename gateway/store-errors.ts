// The store's failures as the catalogue's answers (docs/operations.md, "When something goes wrong"),
// for the JSON handlers (app.ts) and the forms' pages (form-pages.ts) alike.
import { ERRORS, type HttpError } from './errors.ts';
import { NotReplicatedError, StoreLostError, StoreUnavailableError, StoreWriteError } from './store/types.ts';

/**
 * The answer for a store failure, or null for an error that is not one. `unsaved`: the answer when
 * the store could not write what the request asked it to.
 */
export function storeErrorOf(err: unknown, unsaved: HttpError = ERRORS.cannotSaveKeys): HttpError | null {
  if (!(err instanceof StoreUnavailableError)) return null;
  if (err instanceof StoreLostError) return ERRORS.keysRecovering;
  if (err instanceof NotReplicatedError) return ERRORS.keyNotReplicated;
  if (err instanceof StoreWriteError) return unsaved;
  return ERRORS.storeUnavailable;
}
