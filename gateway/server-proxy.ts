// UPSTREAM_URL mode: the body of a response is one precompressed file at the static origin,
// streamed through http-proxy under the gateway's own headers. Part of the server (it writes to
// node:http's responses); loaded only in this mode.
import { Agent, type IncomingMessage, type ServerResponse } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import httpProxy from 'http-proxy';
import { API_KEY_FIELD } from '../build/site-format.ts';
import { ERRORS, type HttpError } from './errors.ts';
import { errorResponse, type GatewayResponse } from './responses.ts';

/** A client's headers the origin never sees: the key, credentials, and the conditions the gateway answers itself. */
const NOT_FORWARDED = [
  API_KEY_FIELD,
  'cookie',
  'authorization',
  'if-none-match',
  'if-modified-since',
  'if-match',
  'range',
];

const { upstreamFailed, upstreamTimeout } = ERRORS;

/**
 * UPSTREAM_URL: the body of a response is the bytes of one precompressed file at the origin,
 * streamed through http-proxy under the gateway's own headers (validators and encoding come from
 * the manifest). The client's key, cookies and conditionals are not passed on. Failure is 502,
 * no answer within the timeout 504, with the usual JSON error body; for a counted request, the
 * app's answer, which takes it back from the key's hour (app.ts, upstreamFailure).
 */
export function createUpstreamProxy(base: string, timeoutMs: number) {
  interface Pending {
    headers: string[];
    expectedLength: string;
    timedOut: boolean;
    settled: boolean;
    /** The app's answer to a failure (a counted request's, with its rate-limit headers); else the plain error. */
    failure: GatewayResponse['upstreamFailure'];
    done: (status: number) => void;
  }
  const pending = new WeakMap<IncomingMessage, Pending>();
  const agent = base.startsWith('https:')
    ? new HttpsAgent({ keepAlive: true, maxSockets: 256 })
    : new Agent({ keepAlive: true, maxSockets: 256 });
  const proxy = httpProxy.createProxyServer({
    selfHandleResponse: true,
    ignorePath: true,
    proxyTimeout: timeoutMs,
    agent,
    changeOrigin: true,
  });

  const fail = (res: ServerResponse, p: Pending, err: HttpError) => {
    if (p.settled) return;
    p.settled = true;
    if (res.headersSent) res.destroy();
    else {
      const r = p.failure ? p.failure(err) : errorResponse(err);
      res.writeHead(r.status, r.headers);
      res.end(r.body);
    }
    p.done(err.status);
  };

  proxy.on('proxyReq', (proxyReq, req) => {
    const p = pending.get(req);
    for (const h of NOT_FORWARDED) proxyReq.removeHeader(h);
    proxyReq.setHeader('accept-encoding', 'identity'); // the file is already in the chosen encoding
    proxyReq.on('timeout', () => {
      if (p) p.timedOut = true;
    });
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
    /** The body of `path` at the origin, under `headers`; `done` with the status sent. */
    forward(
      req: IncomingMessage,
      res: ServerResponse,
      {
        path,
        headers,
        failure,
        done,
      }: {
        path: string;
        headers: string[];
        failure: GatewayResponse['upstreamFailure'];
        done: (status: number) => void;
      },
    ) {
      const i = headers.indexOf('Content-Length');
      const p: Pending = {
        headers,
        expectedLength: i >= 0 ? headers[i + 1]! : '',
        timedOut: false,
        settled: false,
        failure,
        done,
      };
      pending.set(req, p);
      proxy.web(req, res, { target: `${base}${path}` }, () =>
        fail(res, p, p.timedOut ? upstreamTimeout : upstreamFailed),
      );
    },
    close() {
      proxy.close();
      agent.destroy();
    },
  };
}
