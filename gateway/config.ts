// Configuration enters once: loadConfig(env) validates every variable, names the one that is wrong,
// and returns a frozen object. Nothing else reads process.env (docs/contract.md, Configuration).
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { DEFAULT_DIRS } from '../build/site-format.ts';
import { parseTrustProxy, type TrustProxy } from './client-address.ts';

/** A request's headers' bytes at most (docs/operations.md): past it, 431 (errors.ts says the figure). */
export const MAX_HEADER_BYTES = 16 * 1024;

export interface Config {
  port: number;
  host: string | undefined;
  stateDir: string;
  siteDir: string;
  datasetDir: string;
  /**
   * Where the keys live when not in the embedded store: REDIS_URL, or a Sentinel group
   * (docs/operations.md, Redis in production).
   */
  redis: RedisTarget | null;
  /** Prefix of every Redis key, so several deployments (or test runs) can share one server. */
  redisPrefix: string;
  /** REDIS_MIN_REPLICAS: replicas that must hold a new key before it is answered 201 (Redis's WAIT). */
  redisMinReplicas: number;
  upstreamUrl: string | null;
  upstreamTimeoutMs: number;
  /** PUBLIC_URL's origin: what the pages' examples name (else the origin each request was sent to). */
  publicUrl: string | null;
  rateLimitPerHour: number;
  registerLimitPerHour: number;
  /** How many proxies in front (the CDN) to trust for X-Forwarded-For; 0 trusts none. */
  /** Which proxies' X-Forwarded-For and X-Forwarded-Proto are believed (client-address.ts). */
  trustProxy: TrustProxy;
  /** Server timeouts and caps, in milliseconds and bytes. */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxHeaderBytes: number;
  shutdownGraceMs: number;
  /** How long a cache may keep a page, the OpenAPI document or a plain-named file (docs/operations.md). */
  publicCacheSeconds: number;
  /** Which requests get an access log line: all, errors (status 400 and above) or off. */
  accessLog: 'all' | 'errors' | 'off';
  /** The bearer token GET /metrics requires; null: no metrics are kept and the path is unknown. */
  metricsToken: string | null;
  /** SMTP_URL: where mail goes; null: written as .eml files to STATE_DIR/outbox (docs/operations.md, Mail). */
  smtpUrl: string | null;
  /** MAIL_FROM: the sender of the service's mail. */
  mailFrom: string;
}

export class ConfigError extends Error {}

/** One Redis server by its URL, or the primary a Sentinel group names (followed through failovers). */
export type RedisTarget =
  | { kind: 'url'; url: string }
  | {
      kind: 'sentinel';
      sentinels: readonly { host: string; port: number }[];
      name: string;
      /** REDIS_PASSWORD: the primary's and replicas' (a URL carries its own); never echoed. */
      password: string | null;
      /** REDIS_SENTINEL_PASSWORD: the sentinels' own, when they ask for one. */
      sentinelPassword: string | null;
    };

/** REDIS_SENTINELS: `host:port` pairs, comma-separated; an IPv6 address in brackets. */
function sentinelList(raw: string): { host: string; port: number }[] {
  return raw.split(',').map((part) => {
    const m = /^\s*(\[[0-9A-Fa-f:.]+\]|[^\s:[\]]+):(\d{1,5})\s*$/.exec(part);
    const port = m ? Number(m[2]) : 0;
    if (!m || port < 1 || port > 65535)
      throw new ConfigError(
        `REDIS_SENTINELS must be host:port pairs separated by commas (10.0.0.5:26379,10.0.0.6:26379), not "${raw}"`,
      );
    return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
  });
}

/** REDIS_URL, or REDIS_SENTINELS with REDIS_SENTINEL_NAME; never both (which would it be?). */
function redisTarget(env: NodeJS.ProcessEnv): RedisTarget | null {
  const url_ = url(env, 'REDIS_URL', ['redis:', 'rediss:']);
  const sentinels = env.REDIS_SENTINELS || '';
  const name = env.REDIS_SENTINEL_NAME || '';
  if (url_ !== null && (sentinels || name))
    throw new ConfigError('REDIS_URL and REDIS_SENTINELS are two ways to reach Redis: set one of them, not both');
  const secret = (v: string | undefined) => (v === undefined || v === '' ? null : v);
  const [password, sentinelPassword] = [secret(env.REDIS_PASSWORD), secret(env.REDIS_SENTINEL_PASSWORD)];
  if ((password ?? sentinelPassword) !== null && !sentinels)
    throw new ConfigError(
      'REDIS_PASSWORD and REDIS_SENTINEL_PASSWORD go with REDIS_SENTINELS ' +
        '(a REDIS_URL carries its password: redis://:pass@host:6379)',
    );
  if (url_ !== null) return { kind: 'url', url: url_ };
  if (!sentinels && !name) return null;
  if (!sentinels) throw new ConfigError('REDIS_SENTINEL_NAME needs REDIS_SENTINELS, the sentinels that know it');
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(name))
    throw new ConfigError(
      'REDIS_SENTINEL_NAME must be the name the sentinels monitor the primary under ' +
        `(1 to 64 letters, digits, . _ -), not "${name}"`,
    );
  return { kind: 'sentinel', sentinels: sentinelList(sentinels), name, password, sentinelPassword };
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, not "${raw}"`);
  }
  return Number(raw);
}

function url(env: NodeJS.ProcessEnv, name: string, protocols: string[]): string | null {
  const raw = env[name];
  if (raw === undefined || raw === '') return null;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL (${protocols.join(' or ')}), not "${raw}"`);
  }
  if (!protocols.includes(parsed.protocol)) throw new ConfigError(`${name} must start with ${protocols.join(' or ')}`);
  return raw;
}

/** An origin (scheme, host, port), written with or without a trailing slash and nothing after it. */
function origin(env: NodeJS.ProcessEnv, name: string): string | null {
  const raw = url(env, name, ['http:', 'https:']);
  if (raw === null) return null;
  const parsed = new URL(raw);
  if (parsed.pathname !== '/' || parsed.search || parsed.hash || parsed.username || parsed.password)
    throw new ConfigError(`${name} must be an origin alone (e.g. https://grain.example.org), not "${raw}"`);
  return parsed.origin;
}

function oneOf<const T extends string>(env: NodeJS.ProcessEnv, name: string, values: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!values.includes(raw as T)) throw new ConfigError(`${name} must be one of ${values.join(', ')}, not "${raw}"`);
  return raw as T;
}

function token(raw: string | undefined): string | null {
  if (raw === undefined || raw === '') return null;
  // not echoed: it is a secret
  if (!/^[\x21-\x7e]{16,256}$/.test(raw))
    throw new ConfigError('METRICS_TOKEN must be 16 to 256 visible ASCII characters (no spaces)');
  return raw;
}

function prefix(raw: string | undefined): string {
  if (raw === undefined || raw === '') return 'gg:';
  if (!/^[A-Za-z0-9:_.-]{1,64}$/.test(raw))
    throw new ConfigError(`REDIS_KEY_PREFIX must be 1 to 64 letters, digits or : _ . -, not "${raw}"`);
  return raw;
}

/** SMTP_URL: smtp:// or smtps://, credentials in it; never echoed (it may hold a password). */
function smtp(raw: string | undefined): string | null {
  if (raw === undefined || raw === '') return null;
  let protocol = '';
  try {
    protocol = new URL(raw).protocol;
  } catch {
    // said below, without the value
  }
  if (protocol !== 'smtp:' && protocol !== 'smtps:')
    throw new ConfigError('SMTP_URL must be a URL that starts with smtp:// or smtps:// (smtps://user:pass@host:465)');
  return raw;
}

/** MAIL_FROM: an address, or a name with one in angle brackets; no line breaks. */
function mailFrom(raw: string | undefined): string {
  if (raw === undefined || raw === '') return 'Grain grading tables <no-reply@localhost>';
  if (!/^(?:[^\r\n<>]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/.test(raw))
    throw new ConfigError(`MAIL_FROM must be an address (name@example.org, or Name <name@example.org>), not "${raw}"`);
  return raw;
}

/** A host name's labels (RFC 1123): letters, digits and inner hyphens, 63 at most each, 253 in all. */
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const HOST_NAME = new RegExp(`^(?=.{1,253}\\.?$)${LABEL}(?:\\.${LABEL})*\\.?$`);

/** HOST: an IP address (IPv6 with or without its brackets) or a host name; unset: every address. */
function hostOf(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  const bare = raw.startsWith('[') && raw.endsWith(']') ? raw.slice(1, -1) : raw;
  // digits and dots alone are an address or nothing (no top-level name is all digits)
  if (isIP(bare) === 0 && (!HOST_NAME.test(bare) || /^[\d.]+$/.test(bare)))
    throw new ConfigError(`HOST must be an address or host name (0.0.0.0, ::1, localhost), not "${raw}"`);
  return bare;
}

export function loadConfig(env: NodeJS.ProcessEnv, cwd = process.cwd()): Readonly<Config> {
  const trustProxy = parseTrustProxy(env.TRUST_PROXY);
  if ('error' in trustProxy) throw new ConfigError(trustProxy.error);
  const smtpUrl = smtp(env.SMTP_URL);
  const publicUrl = origin(env, 'PUBLIC_URL');
  // A recovery link names the service's origin; taken from a request's Host, a stranger could
  // point a mail sent to someone else at a host of theirs (docs/operations.md, Mail).
  if (smtpUrl !== null && publicUrl === null)
    throw new ConfigError('SMTP_URL needs PUBLIC_URL: recovery mails link to the public origin it names');
  const host = hostOf(env.HOST);
  const redis = redisTarget(env);
  const redisMinReplicas = integer(env, 'REDIS_MIN_REPLICAS', 0, 0, 16);
  if (redisMinReplicas > 0 && redis === null)
    throw new ConfigError('REDIS_MIN_REPLICAS counts Redis replicas: it needs REDIS_URL or REDIS_SENTINELS');
  return Object.freeze({
    port: integer(env, 'PORT', 8080, 0, 65535),
    host,
    stateDir: resolve(cwd, env.STATE_DIR || DEFAULT_DIRS.state),
    siteDir: resolve(cwd, env.SITE_DIR || DEFAULT_DIRS.site),
    datasetDir: resolve(cwd, env.DATASET_DIR || DEFAULT_DIRS.dataset),
    redis,
    redisPrefix: prefix(env.REDIS_KEY_PREFIX),
    redisMinReplicas,
    upstreamUrl: url(env, 'UPSTREAM_URL', ['http:', 'https:'])?.replace(/\/+$/, '') ?? null,
    upstreamTimeoutMs: integer(env, 'UPSTREAM_TIMEOUT_MS', 5_000, 100, 120_000),
    publicUrl,
    rateLimitPerHour: integer(env, 'RATE_LIMIT_PER_HOUR', 100, 1, 1_000_000_000),
    registerLimitPerHour: integer(env, 'REGISTER_LIMIT_PER_HOUR', 10, 1, 1_000_000_000),
    trustProxy,
    headersTimeoutMs: integer(env, 'HEADERS_TIMEOUT_MS', 10_000, 100, 600_000),
    requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT_MS', 15_000, 100, 600_000),
    keepAliveTimeoutMs: integer(env, 'KEEP_ALIVE_TIMEOUT_MS', 5_000, 100, 600_000),
    maxHeaderBytes: MAX_HEADER_BYTES,
    shutdownGraceMs: integer(env, 'SHUTDOWN_GRACE_MS', 10_000, 0, 600_000),
    publicCacheSeconds: integer(env, 'PUBLIC_CACHE_SECONDS', 300, 0, 86_400),
    // behind a CDN, every request is in its log: a line per answered request is the operator's choice
    // (docs/operations.md, Configuration; its cost: docs/performance.md, the measurements behind the code)
    accessLog: oneOf(env, 'ACCESS_LOG', ['all', 'errors', 'off'] as const, 'errors'),
    metricsToken: token(env.METRICS_TOKEN),
    smtpUrl,
    mailFrom: mailFrom(env.MAIL_FROM),
  });
}
