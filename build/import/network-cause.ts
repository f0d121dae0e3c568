// Why a page could not be fetched, in words an editor acts on (docs/dataset-editing.md, step 3):
// fetch says only "fetch failed", and the reason (the name not resolved, the connection refused, no
// answer in time) is in its cause's code. A network failure is the host's, not the page's: the
// caller names it once for the host and skips the host's other pages.

/** The codes of a name that could not be resolved, of a refusal, of no answer in time. */
const DNS = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL']);
const REFUSED = new Set(['ECONNREFUSED']);
const TIMEOUT = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const UNREACHABLE = new Set(['ENETUNREACH', 'EHOSTUNREACH', 'ENETDOWN']);

/**
 * What kept `host` from answering, as a sentence's clause (`the name … cannot be resolved (DNS:
 * ENOTFOUND)`); null when `err` is not a network failure (an HTTP status, a page that cannot be read).
 */
export function networkCause(err: unknown, host: string, timeoutSeconds: number): string | null {
  const e = err as { name?: string; message?: string; cause?: { code?: string; name?: string } } | null;
  if (!e || typeof e !== 'object') return null;
  if (e.name === 'TimeoutError' || e.cause?.name === 'TimeoutError')
    return `${host} did not answer within ${timeoutSeconds} s (timeout)`;
  if (e.name !== 'TypeError' || e.message !== 'fetch failed') return null;
  const code = e.cause?.code ?? '';
  if (DNS.has(code)) return `the name ${host} cannot be resolved (DNS: ${code})`;
  if (REFUSED.has(code)) return `${host} refused the connection (${code})`;
  if (TIMEOUT.has(code)) return `${host} did not answer in time (timeout: ${code})`;
  if (UNREACHABLE.has(code)) return `${host} cannot be reached from this machine (${code})`;
  return `the connection to ${host} failed (${code || e.cause?.name || 'no reason given'})`;
}
