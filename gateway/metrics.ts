// GET /metrics: the Prometheus text format through prom-client, for the operator's
// dashboards. Only when METRICS_TOKEN is set; otherwise nothing is collected and the path is
// unknown. A request costs a few array increments here; prom-client reads the arrays at scrape
// time (its own per-request calls cost several times the 3% allowed: docs/performance.md,
// the measurements behind the code). Labels are route templates, statuses, store operations and
// the build's id and version: nothing a request sends, so no key, hash or e-mail can appear.
import { createHash, timingSafeEqual } from 'node:crypto';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { ROUTE_NAMES, ROUTES, type RouteName } from '../build/site-format.ts';
import type { Mailer } from './mail.ts';
import { watchRunning } from './metrics-gauges.ts';
import { counter, type Labels, registerHistogram, Series } from './metrics-kinds.ts';
import type { SiteHolder } from './site-watch.ts';
import { STORE_OPERATIONS, type Store, type StoreObserver } from './store/types.ts';
import type { TufHolder } from './tuf-metadata.ts';

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

export interface MetricsOptions {
  /** METRICS_TOKEN: the bearer token a scrape must send. */
  token: string;
  clock: () => number;
}

/** The requests answered: by route and status, their durations, those refused, and the keys issued. */
function requestMetrics(registry: Registry, statuses: Float64Array[], durations: Series[]) {
  const countOf = (route: RouteName, status: number) => statuses[LABEL_INDEX[route]]![status]!;
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
}

export function createMetrics(opts: MetricsOptions) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const expected = createHash('sha256').update(opts.token).digest();

  const statuses = ROUTE_LABELS.map(() => new Float64Array(600));
  const durations = ROUTE_LABELS.map(() => new Series(REQUEST_BUCKETS));
  const storeTimes = STORE_OPERATIONS.map(() => new Series(STORE_BUCKETS));
  const storeErrors = STORE_OPERATIONS.map(() => 0);
  let storeKind = 'none';

  requestMetrics(registry, statuses, durations);
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
    watch(store: Store, site: SiteHolder, mailer: Mailer, tuf?: TufHolder | null) {
      storeKind = store.kind;
      watchRunning(registry, { store, site, mailer, clock: opts.clock, tuf });
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
