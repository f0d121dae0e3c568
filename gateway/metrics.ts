// GET /metrics: the Prometheus text format through prom-client, for the operator's
// dashboards. Only when METRICS_TOKEN is set; otherwise nothing is collected and the path is
// unknown. A request costs a few array increments here; prom-client reads the arrays at scrape
// time (its own per-request calls cost several times the 3% allowed: docs/performance.md,
// the measurements behind the code). Labels are route templates, statuses, store operations and
// the build's id and version: nothing a request sends, so no key, hash or e-mail can appear.
import { createHash, timingSafeEqual } from 'node:crypto';
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { ROUTE_NAMES, ROUTES, type RouteName } from '../build/site-format.ts';
import type { Mailer, MailOutcome } from './mail.ts';
import type { SiteHolder } from './site-watch.ts';
import { WRITE_FAILURES } from './store/store-status.ts';
import { STORE_OPERATIONS, type Store, type StoreObserver } from './store/types.ts';

/** The label of every route: its path in the route table (site-format.ts); anything else is "other". */
const ROUTE_LABELS = [...ROUTE_NAMES.map((name) => ROUTES[name].path), 'other'];
/** A row's index in ROUTE_LABELS; a request that matched no row is "other". */
const LABEL_INDEX = Object.freeze(Object.fromEntries(ROUTE_NAMES.map((name, i) => [name, i]))) as Record<
  RouteName,
  number
>;
const OTHER = ROUTE_NAMES.length;

/** Request durations, seconds: a cached body is answered in well under a millisecond. */
const REQUEST_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10];
/** Store operations, seconds: a SQLite query or a Redis round trip. */
const STORE_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1, 0.5, 1];

const MAIL_OUTCOMES: MailOutcome[] = ['sent', 'failed', 'given_up'];

/** One histogram series per label value, in plain arrays; prom-client reads it at scrape time. */
class Series {
  readonly counts: Float64Array;
  sum = 0;
  constructor(readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length + 1);
  }
  observe(v: number) {
    let i = 0;
    while (i < this.bounds.length && v > this.bounds[i]!) i++;
    this.counts[i]!++;
    this.sum += v;
  }
}

/**
 * A histogram prom-client's registry can print: its `get()` answers the documented metric object
 * (bucket, sum and count values), built from the series at scrape time.
 */
function registerHistogram(registry: Registry, name: string, help: string, series: () => [Labels, Series][]) {
  const metric = {
    name,
    help,
    type: 'histogram',
    aggregator: 'sum',
    get: async () => {
      const values: { metricName: string; labels: Labels; value: number }[] = [];
      for (const [labels, s] of series()) {
        let cumulative = 0;
        for (let i = 0; i < s.bounds.length; i++) {
          cumulative += s.counts[i]!;
          values.push({ metricName: `${name}_bucket`, labels: { ...labels, le: s.bounds[i]! }, value: cumulative });
        }
        cumulative += s.counts[s.bounds.length]!;
        values.push({ metricName: `${name}_bucket`, labels: { ...labels, le: '+Inf' }, value: cumulative });
        values.push({ metricName: `${name}_sum`, labels, value: s.sum });
        values.push({ metricName: `${name}_count`, labels, value: cumulative });
      }
      return { name, help, type: 'histogram', aggregator: 'sum', values };
    },
    reset: () => {},
  };
  registry.registerMetric(metric as unknown as Parameters<Registry['registerMetric']>[0]);
}
type Labels = Record<string, string | number>;

/** A counter whose values are read at scrape time (`read`: each series' labels and total). */
function counter(registry: Registry, name: string, help: string, labelNames: string[], read: () => [Labels, number][]) {
  new Counter({
    name,
    help,
    labelNames,
    registers: [registry],
    collect() {
      this.reset();
      for (const [labels, n] of read()) this.inc(labels, n);
    },
  });
}

export interface MetricsOptions {
  /** METRICS_TOKEN: the bearer token a scrape must send. */
  token: string;
  clock: () => number;
}

export function createMetrics(opts: MetricsOptions) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const expected = createHash('sha256').update(opts.token).digest();

  const statuses = ROUTE_LABELS.map(() => new Float64Array(600));
  const durations = ROUTE_LABELS.map(() => new Series(REQUEST_BUCKETS));
  const storeTimes = STORE_OPERATIONS.map(() => new Series(STORE_BUCKETS));
  const storeErrors = STORE_OPERATIONS.map(() => 0);
  const countOf = (route: RouteName, status: number) => statuses[LABEL_INDEX[route]]![status]!;
  let storeKind = 'none';

  counter(
    registry,
    'gateway_http_requests_total',
    'Requests answered, by route template and status.',
    ['route', 'status'],
    () =>
      statuses.flatMap((byStatus, r) => {
        const series: [Labels, number][] = [];
        byStatus.forEach((n, status) => {
          if (n > 0) series.push([{ route: ROUTE_LABELS[r]!, status }, n]);
        });
        return series;
      }),
  );
  registerHistogram(registry, 'gateway_http_request_duration_seconds', 'Time to answer, by route.', () =>
    durations.map((s, r) => [{ route: ROUTE_LABELS[r]! }, s]),
  );
  counter(
    registry,
    'gateway_rejected_requests_total',
    'Requests refused for their key (401: missing, malformed, unknown or revoked) or their hour (429).',
    ['reason'],
    () => {
      let unauthorised = 0;
      let limited = 0;
      for (const byStatus of statuses) {
        unauthorised += byStatus[401]!;
        limited += byStatus[429]!;
      }
      return [
        [{ reason: 'key' }, unauthorised],
        [{ reason: 'rate_limit' }, limited],
      ];
    },
  );
  counter(
    registry,
    'gateway_registrations_total',
    "Keys issued (201 from the API or the front door's form), rotations and recoveries included.",
    [],
    () => [
      [
        {},
        countOf('register', 201) +
          countOf('registerForm', 201) +
          countOf('recoverConfirm', 201) +
          countOf('recoverPage', 201),
      ],
    ],
  );
  registerHistogram(registry, 'gateway_store_operation_duration_seconds', 'Store operations, by store and kind.', () =>
    storeTimes.map((s, i) => [{ store: storeKind, operation: STORE_OPERATIONS[i]! }, s]),
  );
  counter(
    registry,
    'gateway_store_errors_total',
    'Store operations that failed, by store and kind.',
    ['store', 'operation'],
    () => STORE_OPERATIONS.map((operation, i) => [{ store: storeKind, operation }, storeErrors[i]!]),
  );

  return {
    registry,
    /** Records one answered request: the row it was routed to (app.ts), status and duration. */
    request(row: RouteName | undefined, status: number, seconds: number) {
      const r = row === undefined ? OTHER : LABEL_INDEX[row];
      if (status >= 100 && status < 600) statuses[r]![status]!++;
      durations[r]!.observe(seconds);
    },
    /** The stores' observer (store/types.ts). */
    store: ((operation, seconds, failed) => {
      const i = STORE_OPERATIONS.indexOf(operation);
      storeTimes[i]!.observe(seconds);
      if (failed) storeErrors[i]!++;
    }) as StoreObserver,
    /** The gauges read at scrape time from the running store and the loaded build. */
    watch(store: Store, site: SiteHolder, mailer: Mailer) {
      storeKind = store.kind;
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
          if (at !== null) this.set(Math.max(0, (opts.clock() - at) / 1000));
        },
      });
    },
    /** Whether an Authorization header carries the token (compared in constant time). */
    allows(authorization: string | string[] | undefined): boolean {
      if (typeof authorization !== 'string' || !authorization.startsWith('Bearer ')) return false;
      const sent = createHash('sha256').update(authorization.slice(7).trim()).digest();
      return timingSafeEqual(sent, expected);
    },
    render: () => registry.metrics(),
    contentType: registry.contentType,
  };
}
export type Metrics = ReturnType<typeof createMetrics>;
