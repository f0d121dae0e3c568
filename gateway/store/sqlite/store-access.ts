// How the SQLite store touches its file, so that every operation fails the same way: a write the file
// system fails degrades the store until one succeeds, and is a 503 (StoreWriteError); a read it fails
// is a 503 without degrading writes; after close, both are refused. /health says why
// (docs/operations.md, "When something goes wrong").
import { statfsSync } from 'node:fs';
import { StoreStatus, StoreUnavailableError, writeFailureOf } from '../store-status.ts';
import { type StoreObserver, timed } from '../types.ts';

export interface StoreAccessOptions {
  stateDir: string;
  log?: (event: Record<string, unknown>) => void;
  observe?: StoreObserver;
}

export function storeAccess(opts: StoreAccessOptions) {
  let closed = false;
  const status = new StoreStatus(opts.log);
  const freeBytes = () => {
    try {
      const fs = statfsSync(opts.stateDir);
      return fs.bavail * fs.bsize;
    } catch {
      return Number.POSITIVE_INFINITY; // cannot tell: the write that succeeded decides
    }
  };
  const refuseClosed = () => {
    if (closed) throw new StoreUnavailableError('the gateway is shutting down');
  };
  return {
    status,
    freeBytes,
    get closed() {
      return closed;
    },
    close() {
      closed = true;
    },
    /** A write: a failure the file system causes is a 503 (StoreWriteError), any other a bug. */
    write<T>(operation: 'register' | 'revoke' | 'recover', run: () => T): T {
      refuseClosed();
      let result: T;
      try {
        result = timed(opts.observe, operation, run);
      } catch (err) {
        throw status.writeFailed(err, operation);
      }
      status.wrote(freeBytes);
      return result;
    },
    /** A read: one the file system fails is a 503 too, without degrading writes. */
    read<T>(run: () => T): T {
      refuseClosed();
      try {
        return run();
      } catch (err) {
        if (writeFailureOf(err) === null) throw err;
        throw new StoreUnavailableError((err as Error).message);
      }
    },
  };
}

export type StoreAccess = ReturnType<typeof storeAccess>;
