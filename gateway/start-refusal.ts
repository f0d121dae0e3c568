// Why the gateway could not start, in a sentence (gateway/index.ts prints it and exits 1): kept out
// of startup.ts, which npm start's launcher bundles, because it knows the errors of the parts.
import type { Config } from './config.ts';
import { UpstreamError } from './site-load.ts';
import { StateDirError } from './store/state-lock.ts';

/**
 * Why the gateway could not start, as a sentence that names the variable to change, or null for
 * a failure that is a bug (its stack is then the useful part): docs/operations.md, "When something
 * goes wrong".
 */
export function startRefusal(err: unknown, config: Readonly<Config>): string | null {
  const code = (err as NodeJS.ErrnoException).code;
  const where = `${config.host ?? 'every address'} port ${config.port}`;
  if (code === 'EADDRINUSE') return `${where} is in use: stop what holds it, or set PORT`;
  if (code === 'EACCES') return `${where} is not open to this user: set PORT above 1023`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_FAIL')
    return `HOST ${config.host} is not a name this machine can resolve: set HOST to one of its addresses, or unset it`;
  if (code === 'EADDRNOTAVAIL')
    return `HOST ${config.host} is not an address of this machine: set HOST to one of its addresses, or unset it`;
  if (err instanceof StateDirError || err instanceof UpstreamError) return err.message;
  // the Redis store's module loads only in that mode: its refusal is known by name
  if (err instanceof Error && err.name === 'RedisRefusedError') return err.message;
  return null;
}
