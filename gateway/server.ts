// The only file that touches node:http: listening, timeouts, size caps, body reading, writing the
// prepared bytes, and a draining close. Everything else is in app.ts and below.
import { createServer, STATUS_CODES, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createApp, INTERNAL_ERROR, type App, type GatewayResponse } from './app.ts';
import type { Config } from './config.ts';
import { errorBody } from './errors.ts';
import { createLogger, safePath, type LogFn } from './log.ts';
import { tooLarge } from './registration.ts';
import { loadSiteFromDisk, readPointerFile, watchSite, type SiteHolder } from './site.ts';
import { openRedisStore } from './store/redis.ts';
import { openSqliteStore } from './store/sqlite.ts';
import type { Store } from './store/types.ts';

export interface GatewayOptions {
  config: Readonly<Config>;
  /** Epoch milliseconds; tests inject their own. */
  clock?: () => number;
  /** Where log lines go (stdout by default). */
  logWrite?: (chunk: string) => void;
  /** How often current.json is looked at for a new build. */
  sitePollMs?: number;
  /** A store opened by the caller (tests, scale-out); otherwise chosen from the config. */
  store?: Store;
}

export interface Gateway {
  server: Server;
  port: number;
  url: string;
  app: App;
  site: SiteHolder;
  store: Store;
  log: LogFn;
  close(): Promise<void>;
}

const CLIENT_ERRORS: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'The request headers are larger than 16 KiB.'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'The request took too long to arrive.'],
};

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        reject(tooLarge);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (err: Error) => {
      cleanup();
      reject(err);
    };
    const cleanup = () => {
      req.off('data', onData).off('end', onEnd).off('error', onError);
    };
    req.on('data', onData).on('end', onEnd).on('error', onError);
  });
}

export async function startGateway(opts: GatewayOptions): Promise<Gateway> {
  const { config } = opts;
  const clock = opts.clock ?? Date.now;
  const logger = createLogger(opts.logWrite ?? ((s) => process.stdout.write(s)));
  const log = logger.log;
  const limits = { rateLimitPerHour: config.rateLimitPerHour, registerLimitPerHour: config.registerLimitPerHour, clock };
  const store =
    opts.store ??
    (config.redisUrl
      ? openRedisStore({ url: config.redisUrl, prefix: config.redisPrefix, log, ...limits })
      : openSqliteStore({ stateDir: config.stateDir, ...limits }));
  const site = watchSite({
    initial: await loadSiteFromDisk(config.siteDir),
    pollMs: opts.sitePollMs ?? 500,
    readPointer: () => readPointerFile(config.siteDir),
    load: (p) => loadSiteFromDisk(config.siteDir, p),
    log,
  });
  const app = createApp({ config, site, store, clock });

  let inFlight = 0;
  let closing = false;
  let drained: (() => void) | null = null;

  const server = createServer(
    {
      maxHeaderSize: config.maxHeaderBytes,
      requestTimeout: config.requestTimeoutMs,
      headersTimeout: config.headersTimeoutMs,
      keepAliveTimeout: config.keepAliveTimeoutMs,
      connectionsCheckingInterval: 1_000,
    },
    (req, res) => {
      const started = performance.now();
      inFlight++;
      let bodyRead = false;
      const method = req.method ?? 'GET';
      const url = req.url ?? '/';
      const send = (r: GatewayResponse) => {
        let headers = r.headers;
        // An unread or half-read body, or a server going down: close rather than keep alive.
        if (closing || (!req.complete && (bodyRead || method === 'POST'))) headers = headers.concat('Connection', 'close');
        res.writeHead(r.status, headers);
        res.end(r.body ?? undefined);
        logger.request(method, safePath(url), r.status, Math.round((performance.now() - started) * 100) / 100, r.account ?? null);
        if (--inFlight === 0 && drained) drained();
      };
      app
        .handle({
          method,
          url,
          headers: req.headers,
          remoteAddress: req.socket.remoteAddress,
          readBody: (limit) => {
            bodyRead = true;
            return readBody(req, limit);
          },
        })
        .then(send, (err: unknown) => {
          log({ event: 'error', method, path: safePath(url), error: err instanceof Error ? err.stack ?? err.message : String(err) });
          send(INTERNAL_ERROR);
        });
    },
  );
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const [status, message] = CLIENT_ERRORS[err.code ?? ''] ?? [400, 'The request is not valid HTTP.'];
    const body = errorBody(status, message);
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${body.length}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body.toString()}`,
    );
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = config.host && config.host !== '0.0.0.0' && config.host !== '::' ? config.host : '127.0.0.1';
  log({ event: 'listening', port, build_id: site.current.buildId, dataset_version: site.current.datasetVersion, store: store.kind });

  let closed: Promise<void> | null = null;
  const close = () =>
    (closed ??= (async () => {
      closing = true;
      const stopped = new Promise<void>((r) => server.close(() => r()));
      server.closeIdleConnections();
      if (inFlight > 0) {
        await Promise.race([
          new Promise<void>((r) => (drained = r)),
          new Promise<void>((r) => setTimeout(r, config.shutdownGraceMs).unref()),
        ]);
      }
      server.closeAllConnections();
      await stopped;
      site.close();
      await store.close();
      log({ event: 'stopped', in_flight_left: inFlight });
      logger.flush();
    })());

  return { server, port, url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`, app, site, store, log, close };
}
