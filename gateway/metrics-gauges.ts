// GET /metrics' gauges and counters read at scrape time from the running gateway: its mail, its store
// and the build it serves (metrics.ts registers them once these exist: watch).
import { Gauge, type Registry } from 'prom-client';
import type { Mailer, MailOutcome } from './mail.ts';
import { counter } from './metrics-kinds.ts';
import type { SiteHolder } from './site-watch.ts';
import { WRITE_FAILURES } from './store/store-status.ts';
import type { Store } from './store/types.ts';
import { type TufHolder, tufLapsing } from './tuf-metadata.ts';

const MAIL_OUTCOMES: MailOutcome[] = ['sent', 'failed', 'given_up'];

/** The recovery mails: attempts by outcome, and those still to send. */
function mailMetrics(registry: Registry, mailer: Mailer) {
  counter(
    registry,
    'gateway_mail_total',
    'Attempts at sending a mail (recovery links), by outcome: sent, failed (each failed attempt, retried), ' +
      'given_up (the last attempt at a mail failed).',
    ['outcome'],
    () => MAIL_OUTCOMES.map((outcome) => [{ outcome }, mailer.counts[outcome]]),
  );
  new Gauge({
    name: 'gateway_mail_pending',
    help: 'Mails not yet sent: being tried, or waiting to be tried again.',
    registers: [registry],
    collect() {
      this.set(mailer.pending());
    },
  });
}

/** The store: up, data lost, at risk, its failed writes, and the live keys it holds. */
function storeMetrics(registry: Registry, store: Store) {
  new Gauge({
    name: 'gateway_store_up',
    help: '1 while the store answers and can write (for Redis: connected to a writable primary), else 0.',
    labelNames: ['store'],
    registers: [registry],
    collect() {
      this.set({ store: store.kind }, store.status.state === 'ok' ? 1 : 0);
    },
  });
  new Gauge({
    name: 'gateway_store_data_lost',
    help:
      "1 while the key store's data is found lost (Redis emptied, flushed or restored from an older copy), " +
      'else 0.',
    labelNames: ['store'],
    registers: [registry],
    collect() {
      this.set({ store: store.kind }, store.status.state === 'lost' ? 1 : 0);
    },
  });
  new Gauge({
    name: 'gateway_store_at_risk',
    help:
      '1 while the store keeps what it is told in a way a restart can lose (Redis: no append-only file, ' +
      'no replica), else 0.',
    labelNames: ['store'],
    registers: [registry],
    collect() {
      this.set({ store: store.kind }, store.status.warning === null ? 0 : 1);
    },
  });
  counter(
    registry,
    'gateway_store_write_failures_total',
    'Writes the store could not make (no space, read-only, I/O error, locked too long): registrations, ' +
      'revocations and checkpoints, each failed attempt once.',
    ['store', 'reason'],
    () => WRITE_FAILURES.map((reason) => [{ store: store.kind, reason }, store.status.writeFailures[reason]]),
  );
  new Gauge({
    name: 'gateway_live_keys',
    help: 'Keys issued and not revoked (absent while the store cannot be asked).',
    registers: [registry],
    async collect() {
      this.reset();
      try {
        this.set(await store.liveKeys());
      } catch {
        // the store's own metrics say why; a missing value is not a zero
      }
    },
  });
}

/** The build served: its id and version, a newer one refused, and its age. */
function siteMetrics(registry: Registry, site: SiteHolder, clock: () => number) {
  new Gauge({
    name: 'gateway_site_info',
    help: 'The build this process serves: 1, labelled with its build id and dataset version.',
    labelNames: ['build_id', 'dataset_version'],
    registers: [registry],
    collect() {
      this.reset();
      this.set({ build_id: site.current.buildId, dataset_version: site.current.datasetVersion }, 1);
    },
  });
  new Gauge({
    name: 'gateway_site_refused',
    help: '1, labelled with its build id, while a newer build than the one served was refused; else 0.',
    labelNames: ['build_id'],
    registers: [registry],
    collect() {
      this.reset();
      if (site.refused) this.set({ build_id: site.refused.buildId }, 1);
      else this.set(0);
    },
  });
  new Gauge({
    name: 'gateway_site_age_seconds',
    help: "Seconds since the served build's newest changelog entry was made (absent for older builds).",
    registers: [registry],
    collect() {
      this.reset();
      const at = site.current.datasetUpdatedAt;
      if (at !== null) this.set(Math.max(0, (clock() - at) / 1000));
    },
  });
}

/** The signed editions' timestamp: seconds until it lapses, and the two days' warning (tuf-metadata.ts). */
function tufMetrics(registry: Registry, tuf: TufHolder, clock: () => number) {
  new Gauge({
    name: 'gateway_tuf_timestamp_expires_seconds',
    help: 'Seconds until the signed timestamp served lapses (absent while none is served).',
    registers: [registry],
    collect() {
      this.reset();
      if (tuf.timestampExpires !== null) this.set((tuf.timestampExpires - clock()) / 1000);
    },
  });
  new Gauge({
    name: 'gateway_tuf_timestamp_lapsing',
    help: '1 while the signed timestamp lapses within two days (the timer has not re-signed it), else 0.',
    registers: [registry],
    collect() {
      this.set(tufLapsing(tuf, clock()) ? 1 : 0);
    },
  });
}

export interface Running {
  store: Store;
  site: SiteHolder;
  mailer: Mailer;
  clock: () => number;
  tuf?: TufHolder | null;
}

/** Registers the gauges of the running gateway, in the order GET /metrics prints them. */
export function watchRunning(registry: Registry, { store, site, mailer, clock, tuf }: Running) {
  mailMetrics(registry, mailer);
  storeMetrics(registry, store);
  siteMetrics(registry, site, clock);
  if (tuf) tufMetrics(registry, tuf, clock);
}
