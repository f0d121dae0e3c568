// How long this instance may go on trusting a key it verified, past the short trust (1 s) every
// verified key has (docs/operations.md, "Running several instances"). A revocation is announced on
// pub/sub (verified-keys.ts), and Redis answers a PING on the subscriber's connection only after
// every message published before the PING reached it: so once a PING sent at time s is answered,
// every revocation announced before s has been applied here. A key is trusted longer only while
//   - the subscription is proven live: a PING sent within the last second was answered;
//   - the key was verified after the subscription last (re)started and after the store was last
//     down or found emptied (announcements made meanwhile are lost, and a flush announces nothing),
//     so keys verified before are asked again;
//   - and for LONG_TRUST_MS at most, the bound for what no PING can see (a subscription left on a
//     server that still answers but is no longer the primary, until the gateway follows the switch).
// So a revocation reaches every instance at once, and is applied within about a second however its
// announcement fares, except in that last case, where LONG_TRUST_MS bounds it.
import type { Redis } from 'ioredis';

export const LONG_TRUST_MS = 60_000;
/** How often the subscription is proven live, and how recent the proof must be. */
const PING_EVERY_MS = 250;
const PROOF_MS = 1_000;

export interface KeyTrust {
  /** Whether a key Redis confirmed at `at` may still be trusted at `now` without asking again. */
  holds(at: number, now: number): boolean;
  close(): void;
}

/**
 * `subscriber` is the connection verified-keys.ts listens on (construct this after it, so a PING
 * after a reconnection follows its SUBSCRIBE); `usable` says whether the store is up with its data.
 */
export function keyTrust(subscriber: Redis, clock: () => number, usable: () => boolean): KeyTrust {
  /** When the first PING on the current connection was answered (its SUBSCRIBE was then in force). */
  let since = Number.POSITIVE_INFINITY;
  /** When the latest answered PING was sent. */
  let provenAt = Number.NEGATIVE_INFINITY;
  let connection = 0;
  const lapse = () => {
    connection++;
    since = Number.POSITIVE_INFINITY;
    provenAt = Number.NEGATIVE_INFINITY;
  };
  const ping = () => {
    // a store down or emptied meanwhile (a flush announces nothing): every key is asked again
    if (!usable()) lapse();
    if (subscriber.status !== 'ready') return;
    const sentAt = clock();
    const on = connection;
    subscriber.ping().then(
      () => {
        if (on !== connection) return;
        if (since === Number.POSITIVE_INFINITY) since = clock();
        provenAt = Math.max(provenAt, sentAt);
      },
      () => {},
    );
  };
  subscriber.on('ready', () => {
    lapse();
    ping();
  });
  subscriber.on('close', lapse);
  const timer = setInterval(ping, PING_EVERY_MS);
  timer.unref();
  ping();
  return {
    holds: (at, now) => at >= since && now - provenAt < PROOF_MS && now - at < LONG_TRUST_MS && usable(),
    close: () => clearInterval(timer),
  };
}
