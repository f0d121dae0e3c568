// The sentinels as the gateway hears them (docs/operations.md, Redis in production): a connection to
// each, subscribed to its `+switch-master` announcements, and a question to each every POLL_MS
// (SENTINEL MASTER), so a switch is followed within a second even when the old primary still
// answers (a planned failover, a hang, a paused machine), and a misconfiguration is named in the
// sentinels' own words (a wrong REDIS_SENTINEL_PASSWORD, a name they do not monitor, none of them
// answering). Written here rather than through the client library's failover detector, whose
// connections to the sentinels outlived the client's own close (measured).
import { Redis } from 'ioredis';
import type { RedisTarget } from '../../config.ts';

type SentinelTarget = Extract<RedisTarget, { kind: 'sentinel' }>;

/** How often each sentinel is asked which primary it names: the bound on following a switch unheard. */
const POLL_MS = 1_000;
/** How long a sentinel may take to answer before it counts as not answering. */
const ANSWER_MS = 500;

interface Heard {
  where: string;
  /** The primary it names ("host:port"), null when it monitors none of that name, undefined unasked. */
  named?: string | null;
  epoch: number;
  /** Its last error, in its own words. */
  error: string | null;
}

export interface SentinelWatch {
  /** The primary the sentinels name now ("host:port"), or null while none says. */
  named(): string | null;
  /** Why no primary is named, in the sentinels' words, or null. */
  problem(): string | null;
  /** Asks the sentinels now: the primary they name, or null when none can say (problem() says why). */
  ask(): Promise<string | null>;
  close(): void;
}

/** The fields of a SENTINEL MASTER answer (a flat name, value list). */
function fieldsOf(answer: unknown): Map<string, string> {
  const list = Array.isArray(answer) ? (answer as string[]) : [];
  const m = new Map<string, string>();
  for (let i = 0; i + 1 < list.length; i += 2) m.set(String(list[i]), String(list[i + 1]));
  return m;
}

const hostPort = (host: string, port: string | number) => `${host.includes(':') ? `[${host}]` : host}:${port}`;

/** A connection to one sentinel: short timeouts, no queue, a retry every POLL_MS. */
function connection(target: SentinelTarget, host: string, port: number) {
  return new Redis({
    host,
    port,
    ...(target.sentinelPassword === null ? {} : { password: target.sentinelPassword }),
    connectTimeout: ANSWER_MS * 2,
    commandTimeout: ANSWER_MS,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => POLL_MS,
  });
}

/** Why none names a primary, in their words; null when one does. */
function judge(target: SentinelTarget, heard: Heard[]): string | null {
  if (heard.some((h) => typeof h.named === 'string')) return null;
  const answering = heard.filter((h) => h.named === null);
  if (answering.length > 0)
    return (
      `the sentinels at ${answering.map((h) => h.where).join(', ')} monitor no primary named ` +
      `"${target.name}" (REDIS_SENTINEL_NAME)`
    );
  return `no sentinel answers: ${heard.map((h) => `${h.where} (${h.error ?? 'no answer yet'})`).join('; ')}`;
}

/** A connection still being made is waited for (a little), so a first look is an answer. */
async function connected(ask: Redis) {
  if (ask.status !== 'connecting' && ask.status !== 'connect' && ask.status !== 'wait') return;
  await new Promise((resolve) => {
    const timer = setTimeout(resolve, ANSWER_MS * 2);
    const done = () => {
      clearTimeout(timer);
      ask.off('ready', done).off('error', done);
      resolve(null);
    };
    ask.once('ready', done).once('error', done);
  });
}

/** Asks one sentinel which primary it names under the name, and notes its answer or its error. */
async function askOne(target: SentinelTarget, ask: Redis, heard: Heard) {
  try {
    await connected(ask);
    const f = fieldsOf(await ask.call('SENTINEL', 'MASTER', target.name));
    heard.named = f.has('ip') ? hostPort(f.get('ip')!, f.get('port')!) : null;
    heard.epoch = Number(f.get('config-epoch') ?? 0);
    heard.error = null;
  } catch (err) {
    const message = (err as Error).message;
    if (/no such master/i.test(message)) {
      heard.named = null;
      heard.error = null;
    } else {
      heard.named = undefined;
      // a connection that is not up says why in its error event; a command's own error is newer
      if (!/isn't writeable|Connection is closed/.test(message)) heard.error = message;
    }
  }
}

export function watchSentinels(opts: {
  target: SentinelTarget;
  /** The sentinels named another primary than before (a switch, announced or asked). */
  onSwitch: (named: string, previous: string | null) => void;
  log: (fields: Record<string, unknown>) => void;
}): SentinelWatch {
  const { target, log } = opts;
  let named: string | null = null;
  let problem: string | null = null;
  let closed = false;
  const sentinels = target.sentinels.map((s) => {
    const heard: Heard = { where: hostPort(s.host, s.port), epoch: -1, error: null };
    const ask = connection(target, s.host, s.port);
    const sub = connection(target, s.host, s.port);
    for (const c of [ask, sub]) c.on('error', (err: Error) => (heard.error = err.message));
    sub.on('ready', () => void sub.subscribe('+switch-master').catch(() => {}));
    sub.on('message', (_channel: string, message: string) => {
      const [name, , , host, port] = message.split(' ');
      if (name !== target.name || !host || !port) return;
      log({ event: 'store_switch_announced', store: 'redis', sentinel: heard.where, primary: hostPort(host, port) });
      settle(hostPort(host, port));
      void poll();
    });
    return { heard, ask, sub };
  });

  function settle(next: string | null) {
    if (next === null || next === named) return;
    const previous = named;
    named = next;
    if (previous !== null) opts.onSwitch(next, previous);
  }

  let polling: Promise<string | null> | null = null;
  function poll(): Promise<string | null> {
    polling ??= Promise.all(sentinels.map((s) => askOne(target, s.ask, s.heard)))
      .then(() => {
        // the newest configuration wins: the sentinels that took part in the switch have its epoch
        let best: Heard | null = null;
        for (const s of sentinels)
          if (typeof s.heard.named === 'string' && (best === null || s.heard.epoch > best.epoch)) best = s.heard;
        settle(best?.named ?? null);
        const next = judge(
          target,
          sentinels.map((s) => s.heard),
        );
        if (next !== null && next !== problem) log({ event: 'store_sentinels', store: 'redis', reason: next });
        problem = next;
        return best?.named ?? null;
      })
      .finally(() => {
        polling = null;
      });
    return polling;
  }
  const timer = setInterval(() => void poll(), POLL_MS);
  timer.unref();
  void poll();

  return {
    named: () => named,
    problem: () => problem,
    async ask() {
      if (closed) return null;
      // an answer given before the caller's write is no answer about it: a poll that starts after it
      if (polling) await polling;
      return poll();
    },
    close() {
      closed = true;
      clearInterval(timer);
      for (const s of sentinels) {
        s.ask.disconnect();
        s.sub.disconnect();
      }
    },
  };
}
