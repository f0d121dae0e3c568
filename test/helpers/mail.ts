// Mail for the recovery tests: a real SMTP server on port 0 (the smtp-server package, which speaks
// the protocol as any mail server does), the embedded default's outbox, and the token of a
// recovery mail's link. Nothing here is a stub transport: the gateway's own mailer sends.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';
import { RECOVERY_LINK_PARAM, RECOVERY_TOKEN_PREFIX } from '../../build/site-format.ts';
import type { App } from '../../gateway/app.ts';
import { OUTBOX_DIR } from '../../gateway/mail.ts';
import { injectJson } from './inject.ts';

export interface ReceivedMail {
  to: string[];
  /** The message as it arrived, headers and body, with quoted-printable soft breaks undone. */
  text: string;
}

export interface SmtpSink {
  url: string;
  port: number;
  mails: ReceivedMail[];
  /** Stops listening (the port stays ours to listen on again). */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
}

const unfold = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');

export async function startSmtpSink(port = 0): Promise<SmtpSink> {
  const mails: ReceivedMail[] = [];
  const make = () =>
    new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, session, done) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const to = session.envelope.rcptTo.map((r) => r.address);
          mails.push({ to, text: unfold(Buffer.concat(chunks).toString('utf8')) });
          done();
        });
      },
    });
  let server = make();
  const listen = (p: number) =>
    new Promise<number>((resolve, reject) => {
      server.server.once('error', reject);
      server.listen(p, '127.0.0.1', () => resolve((server.server.address() as AddressInfo).port));
    });
  const bound = await listen(port);
  return {
    url: `smtp://127.0.0.1:${bound}`,
    port: bound,
    mails,
    stop: () => new Promise((r) => server.close(() => r())),
    async start() {
      server = make();
      await listen(bound);
    },
  };
}

/** The recovery token a mail's link carries, or null. */
export function tokenIn(text: string): string | null {
  const m = new RegExp(`[?&]${RECOVERY_LINK_PARAM}=(${RECOVERY_TOKEN_PREFIX}[A-Za-z0-9_-]{32})`).exec(text);
  return m ? m[1]! : null;
}

/** The .eml files the embedded default wrote under STATE_DIR/outbox, oldest first. */
export function outbox(stateDir: string): string[] {
  const dir = join(stateDir, OUTBOX_DIR);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .sort()
    .map((f) => unfold(readFileSync(join(dir, f), 'utf8')));
}

/** Waits until `check` gives a value (mail goes out after the answer), failing after `ms`. */
type Maybe<T> = T | null | undefined | false;
export async function eventually<T>(check: () => Maybe<T> | Promise<Maybe<T>>, what: string, ms = 5_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Asks the app for a recovery link for `email` and returns the token of the mail it wrote to the outbox. */
export async function recoveryToken(app: App, stateDir: string, email: string, from = '127.0.0.1') {
  const before = outbox(stateDir).length;
  const res = await injectJson(app, '/api/keys/recover', { email }, { 'x-forwarded-for': from });
  if (res.status !== 202) throw new Error(`recovery answered ${res.status}: ${res.text()}`);
  const mail = await eventually(() => outbox(stateDir)[before], `a recovery mail to ${email}`);
  return tokenIn(mail)!;
}
