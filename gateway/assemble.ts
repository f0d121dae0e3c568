// The gateway's parts put together, without a socket: the log, the metrics, the store, the build
// being served, mail and the app that answers requests. server.ts listens with them; the tests
// drive the same app in process (test/helpers/inject.ts), so the wiring is written once.
import { createApp } from './app.ts';
import { createBodyReader } from './body-reader.ts';
import { servePolicy } from './cache-policy.ts';
import type { Config } from './config.ts';
import { createLogger } from './log.ts';
import { streamOutput } from './log-output.ts';
import { createMailer } from './mail.ts';
import { diskReader, loadSite, readPointer, upstreamReader } from './site-load.ts';
import { watchSite } from './site-watch.ts';
import { openStore } from './store/open.ts';
import type { Store } from './store/types.ts';
import { watchTufMetadata } from './tuf-metadata.ts';

export interface AssembleOptions {
  config: Readonly<Config>;
  /** Epoch milliseconds; tests inject their own. */
  clock?: () => number;
  /** Where log lines go (stdout by default). */
  logWrite?: (chunk: string) => void;
  /** How often current.json is looked at for a new build. */
  sitePollMs?: number;
  /** A store opened by the caller (tests, scale-out); otherwise chosen from the config. */
  store?: Store;
  /** The waits between attempts at a mail that failed (mail.ts has the default). */
  mailRetryDelaysMs?: readonly number[];
}

export async function assembleGateway(opts: AssembleOptions) {
  const { config } = opts;
  const clock = opts.clock ?? Date.now;
  const output = opts.logWrite ? null : streamOutput();
  const logger = createLogger(output ?? ((chunk) => opts.logWrite!(chunk.toString())));
  const log = logger.log;
  // METRICS_TOKEN unset: nothing is measured, /metrics is an unknown path, and prom-client is not
  // even loaded (docs/performance.md, The measurements behind the code)
  const metrics = config.metricsToken
    ? (await import('./metrics.ts')).createMetrics({ token: config.metricsToken, clock })
    : null;
  const store = opts.store ?? (await openStore(config, { clock, log, observe: metrics?.store }));
  const policy = servePolicy(config, clock());
  const reader = config.upstreamUrl
    ? upstreamReader(config.upstreamUrl, config.upstreamTimeoutMs)
    : diskReader(config.siteDir, createBodyReader());
  const site = watchSite({
    initial: await loadSite(reader, policy),
    pollMs: opts.sitePollMs ?? 500,
    readPointer: () => readPointer(reader),
    load: (p) => loadSite(reader, policy, p),
    log,
  });
  // the signed editions' metadata, re-read when its timestamp changes (docs/operations.md, "Signed editions")
  const tuf = await watchTufMetadata({
    read: reader.read,
    pollMs: opts.sitePollMs ?? 500,
    sharedSeconds: policy.sharedSeconds,
    log,
  });
  const mailer = createMailer({ config, log, retryDelaysMs: opts.mailRetryDelaysMs });
  metrics?.watch(store, site, mailer, tuf);
  // Where recovery links point without PUBLIC_URL: the address the server listens on, once known.
  let ownOrigin = `http://localhost:${config.port}`;
  let closed: Promise<void> | null = null;
  const app = createApp({ config, site, store, clock, metrics, mailer, log, tuf, ownOrigin: () => ownOrigin });
  return {
    app,
    site,
    store,
    mailer,
    metrics,
    logger,
    log,
    clock,
    listeningAt(origin: string) {
      ownOrigin = origin;
    },
    /** Once no request is left: the build watcher, mail, the store (its windows saved); once. */
    close: () =>
      (closed ??= (async () => {
        site.close();
        tuf.close();
        await mailer.close();
        await store.close();
        logger.flush();
        output?.close();
      })()),
  };
}
export type GatewayParts = Awaited<ReturnType<typeof assembleGateway>>;
