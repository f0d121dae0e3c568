// The windows asked of Redis in one turn of the event loop leave as one script call
// (window-batch-script.ts), sent when the turn ends: a turn's requests cost one round trip, one
// command and one reply to parse, instead of one each (docs/performance.md, "Redis in
// production"). Counting stays exact across instances: the script is one atomic step that decides
// each window in the order asked, as separate calls would. A failed call fails every window in it,
// and each asker then does what it does when Redis fails (limiter.ts: count locally, or 503).
import type { Redis } from 'ioredis';
import { WINDOW_MS } from '../../rate-limit.ts';
import { WINDOW_BATCH_SCRIPT } from './window-batch-script.ts';

export interface WindowAsk {
  /** The window's key, and the subject's info hash (touched when `touch`). */
  key: string;
  info: string;
  now: number;
  limit: number;
  /** Count one request (true), or only look (false, a 304's peek). */
  count: boolean;
  /** Also record the key's last use and add to its request total. */
  touch: boolean;
}

/** What Redis said of one window: allowed (1 or 0), its count, when it ends (epoch ms). */
export type WindowAnswer = [allowed: number, used: number, resetAt: number];

/** A bound on one call's size: a bigger turn sends more than one. */
const MAX_WINDOWS = 500;

interface Waiting {
  resolve(answer: WindowAnswer): void;
  reject(err: unknown): void;
}

type BatchClient = Redis & { windowBatch(...args: (string | number)[]): Promise<number[]> };

/** `ask(window)` → Redis's answer for it, counted with the other windows of the same turn. */
export function windowBatcher(redis: Redis): (ask: WindowAsk) => Promise<WindowAnswer> {
  const client = redis as BatchClient;
  // numberOfKeys unset: each call gives its own count of keys first
  client.defineCommand('windowBatch', { lua: WINDOW_BATCH_SCRIPT });
  let keys: string[] = [];
  let args: (string | number)[] = [];
  let waiting: Waiting[] = [];
  let scheduled = false;

  const send = () => {
    scheduled = false;
    if (waiting.length === 0) return;
    const [k, a, w] = [keys, args, waiting];
    keys = [];
    args = [];
    waiting = [];
    let sent: Promise<number[]>;
    try {
      sent = client.windowBatch(k.length, ...k, WINDOW_MS, ...a);
    } catch (err) {
      sent = Promise.reject(err);
    }
    sent.then(
      (r) => {
        for (let i = 0; i < w.length; i++) w[i]!.resolve([r[3 * i]!, r[3 * i + 1]!, r[3 * i + 2]!]);
      },
      (err: unknown) => {
        for (const one of w) one.reject(err);
      },
    );
  };

  return (ask) =>
    new Promise<WindowAnswer>((resolve, reject) => {
      keys.push(ask.key, ask.info);
      args.push(ask.now, ask.limit, ask.count ? '1' : '0', ask.touch ? '1' : '0');
      waiting.push({ resolve, reject });
      if (waiting.length >= MAX_WINDOWS) send();
      else if (!scheduled) {
        scheduled = true;
        // after the turn's I/O callbacks: every request read in this turn is in the batch
        setImmediate(send);
      }
    });
}
