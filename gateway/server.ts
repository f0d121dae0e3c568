// The only file that touches node:http: listening, timeouts, size caps, body reading, writing the
// prepared bytes, and a draining close. Everything else is in app.ts and below.
import { Agent, createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
// Imported, not the global: Node 20 defines globalThis.performance as a lazy getter, which cost
// ~0.3 µs a request across the two reads (perf, in the server).
import { performance } from 'node:perf_hooks';
import { createApp, errorResponse, INTERNAL_ERROR, type App, type GatewayRequest, type GatewayResponse } from './app.ts';
import type { Config } from './config.ts';
import { HttpError, MESSAGES, rawErrorResponse } from './errors.ts';
import { createLogger, safePath, type LogFn } from './log.ts';
import { tooLarge } from './registration.ts';
import { loadSiteFromDisk, loadSiteFromUpstream, readPointerFile, readUpstreamPointer, watchSite, type SiteHolder } from './site.ts';
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

/** The app's view of a node:http request; the peer address is read only when asked for. */
class NodeRequest implements GatewayRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  bodyRead = false;
  constructor(
    readonly raw: IncomingMessage,
    /** When the request arrived (the injected clock): decided on and logged with. */
    readonly now: number,
  ) {
    this.method = raw.method ?? 'GET';
    this.url = raw.url ?? '/';
    this.headers = raw.headers;
  }
  get remoteAddress() {
    return this.raw.socket.remoteAddress;
  }
  readBody(limit: number) {
    this.bodyRead = true;
    return readBody(this.raw, limit);
  }
}

export async function startGateway(opts: GatewayOptions): Promise<Gateway> {
  const { config } = opts;
  const clock = opts.clock ?? Date.now;
  const logger = createLogger(
    opts.logWrite
      ? (chunk) => opts.logWrite!(chunk.toString())
      : { write: (chunk) => process.stdout.write(chunk), onDrain: (resume) => process.stdout.once('drain', resume) },
  );
  const log = logger.log;
  const limits = { rateLimitPerHour: config.rateLimitPerHour, registerLimitPerHour: config.registerLimitPerHour, clock };
  const store =
    opts.store ??
    (config.redisUrl
      ? (await import('./store/redis.ts')).openRedisStore({ url: config.redisUrl, prefix: config.redisPrefix, log, ...limits })
      : openSqliteStore({ stateDir: config.stateDir, log, ...limits }));
  const upstream = config.upstreamUrl;
  const site = watchSite({
    initial: upstream ? await loadSiteFromUpstream(upstream, config.upstreamTimeoutMs) : await loadSiteFromDisk(config.siteDir),
    pollMs: opts.sitePollMs ?? 500,
    readPointer: () => (upstream ? readUpstreamPointer(upstream, config.upstreamTimeoutMs) : readPointerFile(config.siteDir)),
    load: (p) => (upstream ? loadSiteFromUpstream(upstream, config.upstreamTimeoutMs, p) : loadSiteFromDisk(config.siteDir, p)),
    log,
  });
  const proxy = upstream ? await createUpstreamProxy(upstream, config.upstreamTimeoutMs) : null;
  const app = createApp({ config, site, store, clock });

  let inFlight = 0;
  let closing = false;
  let drained: (() => void) | null = null;

  const finish = (request: NodeRequest, status: number, account: string | null, started: number) => {
    logger.request(request.method, request.url, status, performance.now() - started, account, request.now); // rounded by the logger
    if (--inFlight === 0 && drained) drained();
  };
  const send = (request: NodeRequest, res: ServerResponse, r: GatewayResponse, started: number) => {
    const req = request.raw;
    let headers = r.headers;
    // An unread or half-read body, or a server going down: close rather than keep alive.
    if (closing || (!req.complete && (request.bodyRead || request.method === 'POST'))) headers = headers.concat('Connection', 'close');
    if (r.proxy !== null && proxy) {
      proxy.forward(req, res, r.proxy, headers, (status) => finish(request, status, r.account, started));
      return;
    }
    res.writeHead(r.status, headers);
    res.end(r.body ?? undefined);
    finish(request, r.status, r.account, started);
  };
  const failed = (request: NodeRequest, err: unknown): GatewayResponse => {
    log({ event: 'error', method: request.method, path: safePath(request.url), error: err instanceof Error ? err.stack ?? err.message : String(err) });
    return INTERNAL_ERROR;
  };
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    inFlight++;
    const request = new NodeRequest(req, clock());
    let answer: GatewayResponse | Promise<GatewayResponse>;
    try {
      answer = app.handle(request, request.now);
    } catch (err) {
      answer = failed(request, err);
    }
    if (answer instanceof Promise) {
      answer.then(
        (r) => send(request, res, r, started),
        (err: unknown) => send(request, res, failed(request, err), started),
      );
    } else send(request, res, answer, started);
  };
  const server = createServer(
    {
      maxHeaderSize: config.maxHeaderBytes,
      requestTimeout: config.requestTimeoutMs,
      headersTimeout: config.headersTimeoutMs,
      keepAliveTimeout: config.keepAliveTimeoutMs,
      // how often requestTimeout and headersTimeout are enforced: a tenth of the shorter one
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(Math.min(config.headersTimeoutMs, config.requestTimeoutMs) / 10))),
    },
    onRequest,
  );
  // An Expect other than 100-continue is ignored (RFC 9110 §10.1.1), not answered with a bare 417.
  server.on('checkExpectation', onRequest);
  // CONNECT would otherwise get no answer at all: it is a method like any other we do not allow.
  server.on('connect', (req: IncomingMessage, socket: Socket) => {
    socket.end(rawErrorResponse(405, 'Method Not Allowed', 'Method not allowed.'));
    logger.request(req.method ?? 'CONNECT', req.url ?? '', 405, 0, null, clock());
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const [status, message] = CLIENT_ERRORS[err.code ?? ''] ?? [400, 'The request is not valid HTTP.'];
    socket.end(rawErrorResponse(status, STATUS_CODES[status]!, message));
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
      proxy?.close();
      await store.close();
      log({ event: 'stopped', in_flight_left: inFlight });
      logger.flush();
    })());

  return { server, port, url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`, app, site, store, log, close };
}

const upstreamFailed = new HttpError(502, MESSAGES.upstreamFailed);
const upstreamTimeout = new HttpError(504, MESSAGES.upstreamTimeout);

/**
 * UPSTREAM_URL: the body of a response is the bytes of one precompressed file at the origin,
 * streamed through http-proxy under the gateway's own headers (validators and encoding come from
 * the manifest). The client's key, cookies and conditionals are not passed on. Failure is 502,
 * no answer within the timeout 504, with the usual JSON error body.
 */
async function createUpstreamProxy(base: string, timeoutMs: number) {
  const { default: httpProxy } = await import('http-proxy'); // only in this mode
  interface Pending {
    headers: string[];
    expectedLength: string;
    timedOut: boolean;
    settled: boolean;
    done: (status: number) => void;
  }
  const pending = new WeakMap<IncomingMessage, Pending>();
  const agent = base.startsWith('https:') ? new HttpsAgent({ keepAlive: true, maxSockets: 256 }) : new Agent({ keepAlive: true, maxSockets: 256 });
  const proxy = httpProxy.createProxyServer({ selfHandleResponse: true, ignorePath: true, proxyTimeout: timeoutMs, agent, changeOrigin: true });

  const fail = (res: ServerResponse, p: Pending, err: HttpError) => {
    if (p.settled) return;
    p.settled = true;
    if (res.headersSent) res.destroy();
    else {
      const r = errorResponse(err);
      res.writeHead(r.status, r.headers);
      res.end(r.body);
    }
    p.done(err.status);
  };

  proxy.on('proxyReq', (proxyReq, req) => {
    const p = pending.get(req);
    for (const h of ['x-api-key', 'cookie', 'authorization', 'if-none-match', 'if-modified-since', 'if-match', 'range']) proxyReq.removeHeader(h);
    proxyReq.setHeader('accept-encoding', 'identity'); // the file is already in the chosen encoding
    proxyReq.on('timeout', () => p && (p.timedOut = true));
  });
  proxy.on('proxyRes', (proxyRes, req, res) => {
    const p = pending.get(req)!;
    const length = proxyRes.headers['content-length'];
    if (proxyRes.statusCode !== 200 || (length !== undefined && length !== p.expectedLength)) {
      proxyRes.resume();
      fail(res, p, upstreamFailed);
      return;
    }
    res.writeHead(200, p.headers);
    proxyRes.pipe(res);
    proxyRes.on('end', () => {
      if (p.settled) return;
      p.settled = true;
      p.done(200);
    });
    proxyRes.on('error', () => fail(res, p, upstreamFailed));
  });

  return {
    forward(req: IncomingMessage, res: ServerResponse, path: string, headers: string[], done: (status: number) => void) {
      const i = headers.indexOf('Content-Length');
      const p: Pending = { headers, expectedLength: i >= 0 ? headers[i + 1]! : '', timedOut: false, settled: false, done };
      pending.set(req, p);
      proxy.web(req, res, { target: `${base}${path}` }, () => fail(res, p, p.timedOut ? upstreamTimeout : upstreamFailed));
    },
    close() {
      proxy.close();
      agent.destroy();
    },
  };
}
