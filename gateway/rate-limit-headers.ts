// The rate-limit headers of an answer (docs/contract.md, Authentication and limits): X-RateLimit-*
// and the IETF draft pair, after the answer's own headers. Built from templates kept per base list,
// so a request fills in only what is its own; the window arithmetic is rate-limit.ts's.
import { RATE_LIMIT_HEADERS as H, rateLimitPolicy } from '../build/site-format.ts';
import { type Decision, retryAfterSeconds } from './rate-limit.ts';

/**
 * The rate-limit headers of a response, as a template per base list (a variant's headers, kept
 * for the life of its build) and limit: the values that change only with the limit are filled in
 * (Limit, Policy), and the named slots are where a request writes its own. A response copies the
 * template (a slice: one fast clone) and fills the slots.
 */
interface Template {
  headers: string[];
  slots: { retryAfter: number; remaining: number; used: number; reset: number; rateLimit: number };
}

function buildTemplate(base: readonly string[], limit: number, retryAfter: boolean): Template {
  const headers = [...base];
  const slot = (name: string, value = '') => headers.push(name, value) - 1;
  const retryAfterSlot = retryAfter ? slot('Retry-After') : -1;
  slot(H.limit, String(limit));
  const remaining = slot(H.remaining);
  const used = slot(H.used);
  const reset = slot(H.reset);
  slot(H.policy, rateLimitPolicy(limit));
  const rateLimit = slot(H.rateLimit);
  return { headers, slots: { retryAfter: retryAfterSlot, remaining, used, reset, rateLimit } };
}

interface Templates {
  limit: number;
  plain: Template | null;
  retry: Template | null;
}
const NO_HEADERS: readonly string[] = [];

/** One per app: the templates of the base lists it serves. */
export function createRateLimitHeaders() {
  const templates = new WeakMap<readonly string[], Templates>();
  const templateFor = (base: readonly string[], limit: number, retryAfter: boolean): Template => {
    let t = templates.get(base);
    if (t === undefined || t.limit !== limit) {
      t = { limit, plain: null, retry: null };
      templates.set(base, t);
    }
    if (retryAfter) {
      t.retry ??= buildTemplate(base, limit, true);
      return t.retry;
    }
    t.plain ??= buildTemplate(base, limit, false);
    return t.plain;
  };
  // Each key's window ends at its own time: the reset's text is made per request (a text kept for
  // the last window end missed on almost every request, and cost a store into the closure when it did).
  const fill = (d: Decision, now: number, template: Template): string[] => {
    const remaining = String(Math.max(d.limit - d.used, 0));
    const { slots } = template;
    const h = template.headers.slice();
    if (slots.retryAfter >= 0) h[slots.retryAfter] = String(retryAfterSeconds(d, now));
    h[slots.remaining] = remaining;
    h[slots.used] = String(d.used);
    h[slots.reset] = String(Math.ceil(d.resetAt / 1000));
    h[slots.rateLimit] = `"default";r=${remaining};t=${Math.max(0, Math.ceil((d.resetAt - now) / 1000))}`;
    return h;
  };
  return {
    /** `base`, then X-RateLimit-* and the IETF draft pair (docs/contract.md, Authentication and limits). */
    rateLimitHeaders: (d: Decision, now: number, base: readonly string[] = NO_HEADERS): string[] =>
      fill(d, now, templateFor(base, d.limit, false)),
    /** The same for a 429: Retry-After (whole seconds, at least 1) before the rate-limit headers. */
    retryHeaders: (d: Decision, now: number, base: readonly string[] = NO_HEADERS): string[] =>
      fill(d, now, templateFor(base, d.limit, true)),
  };
}
