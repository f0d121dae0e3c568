// Mail (docs/operations.md, "Mail"): through nodemailer over SMTP_URL, or, the embedded default,
// written as .eml files (mode 0600) to STATE_DIR/outbox for whoever runs the gateway to read. A
// mail is sent after the request that asked for it was answered, so its fate never shows in an
// answer: one that fails is logged, counted (GET /metrics), shown in /health (mail_degraded) and
// tried again a bounded number of times. Never logged: a mail's text (it holds a recovery link).
// A mail that must not go out (a recovery asked for an address no account holds) is rehearsed:
// composed the same way and, on the embedded default, written to one scratch file, so that it costs
// the event loop what a real one does (docs/contract.md, Getting a key back).
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTransport } from 'nodemailer';
import type { Config } from './config.ts';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** What the mail is for, as the log names it (never its text). */
  purpose: string;
}

export interface MailerOptions {
  /** SMTP_URL (null: the outbox folder under STATE_DIR) and MAIL_FROM. */
  config: Pick<Config, 'smtpUrl' | 'mailFrom' | 'stateDir'>;
  log: (fields: Record<string, unknown>) => void;
  /**
   * The waits before each new attempt at a mail that failed: its last attempt is the last of
   * these. The default ends before a recovery link expires (docs/contract.md, Getting a key back).
   */
  retryDelaysMs?: readonly number[];
}

export type MailOutcome = 'sent' | 'failed' | 'given_up';

export interface Mailer {
  /** Queues a mail: its first attempt starts at once. Never throws. */
  send(message: MailMessage): void;
  /**
   * Composes a mail as send does and sends it nowhere: over SMTP it is dropped once composed; on
   * the embedded default it overwrites DECOY_FILE. Counted nowhere, logged never. Never throws.
   */
  rehearse(message: MailMessage): Promise<void>;
  /** Whether the last attempt failed, and why (/health); `version` changes with it. */
  readonly status: { readonly degraded: boolean; readonly reason: string | null; readonly version: number };
  /** Attempts by outcome: sent, failed (each failed attempt), given up (GET /metrics). */
  readonly counts: Readonly<Record<MailOutcome, number>>;
  /** Mails not yet sent (being tried, or waiting for another attempt). */
  pending(): number;
  /** Waits a moment for attempts under way, drops the waiting ones (logged), and closes. */
  close(): Promise<void>;
}

/** The embedded default's mail folder, under STATE_DIR. */
export const OUTBOX_DIR = 'outbox';
/** The rehearsed mails' one file, under STATE_DIR, each overwriting the last (mode 0600). */
export const DECOY_FILE = 'mail-rehearsal.eml';
const DEFAULT_RETRY_DELAYS_MS = [5_000, 30_000, 120_000, 300_000, 600_000];
const CLOSE_WAIT_MS = 2_000;

export function createMailer(opts: MailerOptions): Mailer {
  const { smtpUrl, mailFrom: from, stateDir } = opts.config;
  const outboxDir = join(stateDir, OUTBOX_DIR);
  const delays = opts.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
  const composer = createTransport({ streamTransport: true, buffer: true, newline: 'unix' }, { from });
  const transport = smtpUrl ? createTransport(smtpUrl, { from }) : composer;
  const status = { degraded: false, reason: null as string | null, version: 0 };
  const counts: Record<MailOutcome, number> = { sent: 0, failed: 0, given_up: 0 };
  const waiting = new Set<NodeJS.Timeout>();
  const underWay = new Set<Promise<void>>();
  let closed = false;

  const setStatus = (degraded: boolean, reason: string | null) => {
    if (status.degraded === degraded && status.reason === reason) return;
    status.degraded = degraded;
    status.reason = reason;
    status.version++;
  };

  /** One attempt: over SMTP, or as a file in the outbox; resolves with where it went. */
  async function deliver(m: MailMessage): Promise<string> {
    const info = await transport.sendMail({ to: m.to, subject: m.subject, text: m.text });
    if (smtpUrl) return 'smtp';
    return write(info, `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}.eml`);
  }

  /** A composed mail into the outbox as `file`, or over DECOY_FILE (null): the same calls either way. */
  function write(info: unknown, file: string | null) {
    mkdirSync(outboxDir, { recursive: true, mode: 0o700 });
    const path = file === null ? join(stateDir, DECOY_FILE) : join(outboxDir, file);
    writeFileSync(path, (info as { message: Buffer }).message, { mode: 0o600, flag: file === null ? 'w' : 'wx' });
    return path;
  }

  function attempt(m: MailMessage, n: number) {
    const run = deliver(m).then(
      (where) => {
        counts.sent++;
        setStatus(false, null);
        opts.log(
          smtpUrl
            ? { event: 'mail_sent', purpose: m.purpose }
            : { event: 'mail_written', purpose: m.purpose, file: where },
        );
      },
      (err: unknown) => {
        counts.failed++;
        const why = err instanceof Error ? err.message : String(err);
        setStatus(true, `The last mail could not be sent (${why}).`);
        const last = n >= delays.length || closed;
        opts.log({ event: 'mail_failed', purpose: m.purpose, attempt: n + 1, retry: !last, error: why });
        if (last) {
          counts.given_up++;
          return;
        }
        const timer = setTimeout(() => {
          waiting.delete(timer);
          attempt(m, n + 1);
        }, delays[n]);
        waiting.add(timer);
      },
    );
    underWay.add(run);
    run.finally(() => underWay.delete(run));
  }

  return {
    send(m) {
      if (closed) {
        opts.log({ event: 'mail_dropped', purpose: m.purpose, reason: 'the gateway is shutting down' });
        return;
      }
      attempt(m, 0);
    },
    async rehearse(m) {
      try {
        const info = await composer.sendMail({ to: m.to, subject: m.subject, text: m.text });
        if (!smtpUrl) write(info, null);
      } catch {
        // nothing was to be sent: a rehearsal that fails tells nobody anything
      }
    },
    status,
    counts,
    pending: () => underWay.size + waiting.size,
    async close() {
      closed = true;
      const timeout = new Promise<void>((r) => setTimeout(r, CLOSE_WAIT_MS).unref());
      await Promise.race([Promise.allSettled([...underWay]), timeout]);
      if (waiting.size > 0) opts.log({ event: 'mail_dropped', count: waiting.size, reason: 'shutdown' });
      for (const timer of waiting) clearTimeout(timer);
      waiting.clear();
      transport.close();
    },
  };
}
