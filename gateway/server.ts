// The only file that touches node:http: listening, timeouts, size caps, body reading, writing the
// prepared bytes, and a draining close. Everything else is in app.ts and below.
import { createServer, type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
// Imported, not the global: Node 20 defines globalThis.performance as a lazy getter, a cost on
// every request (docs/performance.md: the measurements behind the code).
import { performance } from 'node:perf_hooks';
import { pipeline, Readable } from 'node:stream';
import type { RouteName } from '../build/site-format.ts';
import { type App, type GatewayRequest, type GatewayResponse, INTERNAL_ERROR, type Reply } from './app.ts';
import { type AssembleOptions, assembleGateway, type GatewayParts } from './assemble.ts';
import { TRUST_PROXY_HOPS_WARNING } from './client-address.ts';
import { ERRORS, type HttpError } from './errors.ts';
import type { LogFn, RequestLine } from './log.ts';
import { safePath } from './log.ts';
import type { Mailer } from './mail.ts';
import { overflowIsTarget } from './request-target.ts';
import type { SiteHolder } from './site-watch.ts';
import { rawErrorResponse } from './socket-errors.ts';
import type { Store } from './store/types.ts';

export type GatewayOptions = AssembleOptions;

export interface Gateway {
  server: Server;
  port: number;
  url: string;
  app: App;
  site: SiteHolder;
  store: Store;
  mailer: Mailer;
  log: LogFn;
  close(): Promise<void>;
}

/** node:http's client errors that have an answer of their own; any other is ERRORS.badHttp. */
const CLIENT_ERRORS: Record<string, HttpError> = {
  HPE_HEADER_OVERFLOW: ERRORS.headersTooLarge,
  ERR_HTTP_REQUEST_TIMEOUT: ERRORS.requestTimeout,
};

/** What node:http adds to a parse error it hands to 'clientError': the chunk it was reading, and how far in. */
type ClientError = NodeJS.ErrnoException & { rawPacket?: Buffer; bytesParsed?: number };

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        reject(ERRORS.tooLarge);
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
class NodeRequest implements GatewayRequest, RequestLine {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  bodyRead = false;
  /** For the log line, once answered (finish). */
  status = 0;
  ms = 0;
  account: string | null = null;
  row: RouteName | undefined = undefined;
  constructor(
    readonly raw: IncomingMessage,
    /** When the request arrived (the injected clock): decided on and logged with. */
    readonly now: number,
    /** performance.now() when it arrived, when its duration is wanted (log or metrics); else 0. */
    readonly started: number,
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

type Proxy = ReturnType<typeof import('./server-proxy.ts').createUpstreamProxy> | null;

/** The requests in flight, counted so that a close waits for them (shutdownGraceMs at most). */
type Traffic = { inFlight: number; closing: boolean; drained: (() => void) | null };

/** What the server's parts share: the gateway assembled, its config, the upstream proxy if any, the traffic. */
type Served = { parts: GatewayParts; config: GatewayOptions['config']; proxy: Proxy; traffic: Traffic };

/** The request path: each request handed to the app, its answer written (or proxied), then logged and counted. */
function requestHandler({ parts, config, proxy, traffic }: Served) {
  const { app, metrics, logger, log, clock } = parts;
  const { accessLog } = config;
  // ACCESS_LOG: a deployment whose CDN logs every request may keep only errors, or none.
  const logAll = accessLog === 'all';
  const logErrors = accessLog === 'errors';
  const timed = accessLog !== 'off' || metrics !== null;
  // a streamed body is logged when its headers are written, and in flight until it is sent
  const settle = () => --traffic.inFlight === 0 && traffic.drained?.();
  const finish = (request: NodeRequest, status: number, account: string | null, sent = true) => {
    request.status = status;
    request.account = account;
    // the clock is read again only for a duration someone reads: metrics, or a line to log
    // (docs/performance.md: the measurements behind the code)
    const logged = logAll || (logErrors && status >= 400);
    if (logged || metrics !== null) request.ms = performance.now() - request.started;
    metrics?.request(request.row, status, request.ms / 1000);
    if (logged) logger.request(request);
    if (sent) settle();
  };
  const send = (request: NodeRequest, res: ServerResponse, r: GatewayResponse) => {
    const req = request.raw;
    let headers = r.headers;
    // An unread or half-read body, or a server going down: close rather than keep alive.
    if (traffic.closing || (!req.complete && (request.bodyRead || request.method === 'POST')))
      headers = headers.concat('Connection', 'close');
    if (r.proxy !== null && proxy) {
      const done = (status: number) => finish(request, status, r.account);
      proxy.forward(req, res, { path: r.proxy, headers, failure: r.upstreamFailure, done });
      return;
    }
    res.writeHead(r.status, headers);
    if (r.body instanceof Readable) return streamed(request, res, r, r.body);
    res.end(r.body ?? undefined);
    finish(request, r.status, r.account);
  };
  // A body read from disk as the socket takes it (body-reader.ts): cut short of its Content-Length,
  // or a failed read, ends the connection and is logged (a client gone is not)
  const streamed = (request: NodeRequest, res: ServerResponse, r: GatewayResponse, body: Readable) => {
    res.strictContentLength = true;
    finish(request, r.status, r.account, false);
    pipeline(body, res, (err) => {
      if (err && err.code !== 'ERR_STREAM_PREMATURE_CLOSE') {
        failed(request, err); // logged; the status line is gone, so the connection ends
        res.destroy();
      }
      settle();
    });
  };
  const failed = (request: NodeRequest, err: unknown): GatewayResponse => {
    log({
      event: 'error',
      method: request.method,
      path: safePath(request.url),
      error: err instanceof Error ? (err.stack ?? err.message) : String(err),
    });
    return INTERNAL_ERROR;
  };
  return (req: IncomingMessage, res: ServerResponse) => {
    traffic.inFlight++;
    const request = new NodeRequest(req, clock(), timed ? performance.now() : 0);
    let reply: Reply;
    try {
      reply = app.handle(request, request.now);
    } catch (err) {
      reply = failed(request, err);
    }
    if (reply instanceof Promise) {
      reply.then(
        (r) => send(request, res, r),
        (err: unknown) => send(request, res, failed(request, err)),
      );
    } else send(request, res, reply);
  };
}

/** The server with its timeouts and caps, answering what never reaches the app: CONNECT and unparsable requests. */
function createGatewayServer(
  { parts, config }: Served,
  onRequest: (req: IncomingMessage, res: ServerResponse) => void,
) {
  const { logger, clock } = parts;
  const server = createServer(
    {
      maxHeaderSize: config.maxHeaderBytes,
      requestTimeout: config.requestTimeoutMs,
      headersTimeout: config.headersTimeoutMs,
      keepAliveTimeout: config.keepAliveTimeoutMs,
      // how often requestTimeout and headersTimeout are enforced: a tenth of the shorter one
      connectionsCheckingInterval: Math.max(
        50,
        Math.min(1_000, Math.floor(Math.min(config.headersTimeoutMs, config.requestTimeoutMs) / 10)),
      ),
    },
    onRequest,
  );
  // An Expect other than 100-continue is ignored (RFC 9110 §10.1.1), not answered with a bare 417.
  server.on('checkExpectation', onRequest);
  // CONNECT would otherwise get no answer at all: it is a method like any other we do not allow.
  server.on('connect', (req: IncomingMessage, socket: Socket) => {
    socket.end(rawErrorResponse(ERRORS.connectNotAllowed, 'Method Not Allowed'));
    if (config.accessLog !== 'off')
      logger.request({
        method: req.method ?? 'CONNECT',
        url: req.url ?? '',
        status: 405,
        ms: 0,
        account: null,
        now: clock(),
      });
  });
  server.on('clientError', (err: ClientError, socket: Socket) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    // the parser counts the request line with the headers: a long URL is a 414, not a 431 (request-target.ts)
    const answer =
      err.code === 'HPE_HEADER_OVERFLOW' && overflowIsTarget(err.rawPacket, err.bytesParsed)
        ? ERRORS.uriTooLong
        : (CLIENT_ERRORS[err.code ?? ''] ?? ERRORS.badHttp);
    socket.end(rawErrorResponse(answer, STATUS_CODES[answer.status]!));
  });
  return server;
}

/** A draining close, once: no new connection, idle ones closed, the requests in flight given their grace. */
function drainingClose({ parts, config, proxy, traffic }: Served, server: Server) {
  let closed: Promise<void> | null = null;
  return () =>
    (closed ??= (async () => {
      traffic.closing = true;
      const stopped = new Promise<void>((r) => server.close(() => r()));
      server.closeIdleConnections();
      if (traffic.inFlight > 0) {
        await Promise.race([
          new Promise<void>((r) => (traffic.drained = r)),
          new Promise<void>((r) => setTimeout(r, config.shutdownGraceMs).unref()),
        ]);
      }
      server.closeAllConnections();
      await stopped;
      proxy?.close();
      await parts.close();
      parts.log({ event: 'stopped', in_flight_left: traffic.inFlight });
      parts.logger.flush();
    })());
}

export async function startGateway(opts: GatewayOptions): Promise<Gateway> {
  const { config } = opts;
  const parts = await assembleGateway(opts);
  const { app, site, store, mailer, log } = parts;
  const upstream = config.upstreamUrl;
  // http-proxy is loaded only in this mode
  const proxy = upstream
    ? (await import('./server-proxy.ts')).createUpstreamProxy(upstream, config.upstreamTimeoutMs)
    : null;
  const served: Served = { parts, config, proxy, traffic: { inFlight: 0, closing: false, drained: null } };
  const server = createGatewayServer(served, requestHandler(served));

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = config.host && config.host !== '0.0.0.0' && config.host !== '::' ? config.host : '127.0.0.1';
  parts.listeningAt(`http://${config.host ? (host.includes(':') ? `[${host}]` : host) : 'localhost'}:${port}`);
  log({
    event: 'listening',
    port,
    build_id: site.current.buildId,
    dataset_version: site.current.datasetVersion,
    store: store.kind,
  });
  if (config.trustProxy.kind === 'hops') {
    // A hop count believes X-Forwarded-For from whoever connects (docs/operations.md, "Behind a CDN")
    log({ event: 'warning', message: TRUST_PROXY_HOPS_WARNING });
  }
  const close = drainingClose(served, server);
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return { server, port, url, app, site, store, mailer, log, close };
}
