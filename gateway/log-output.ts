// Where the gateway's log lines go by default: its stdout. A reader that goes away (a pipe whose
// other end closed, journald restarted under systemd) costs the lines, never the process: the
// error is said once on stderr and the gateway goes on answering without a log (docs/operations.md,
// Configuration). Without this, the stream's EPIPE error would end the process.
import type { LogOutput } from './log.ts';

export interface StreamOutput extends LogOutput {
  /** Stops listening to the stream's errors (the gateway is closing). */
  close(): void;
}

export function streamOutput(
  stream: NodeJS.WritableStream = process.stdout,
  warn: (line: string) => void = (line) => process.stderr.write(line),
): StreamOutput {
  let lost = false;
  /** The logger waiting for room (a backed-up stream): let go when the stream is lost, too. */
  let waiting: (() => void) | null = null;
  const onError = (err: NodeJS.ErrnoException) => {
    if (lost) return;
    lost = true;
    warn(`log output lost (${err.code ?? err.message}): no more log lines are written; the gateway goes on\n`);
    const resume = waiting;
    waiting = null;
    resume?.();
  };
  stream.on('error', onError);
  return {
    // a lost output takes every line and keeps none, so the logger neither holds nor drops them
    write: (chunk) => (lost ? true : stream.write(chunk)),
    onDrain: (resume) => {
      waiting = resume;
      stream.once('drain', () => {
        waiting = null;
        resume();
      });
    },
    close: () => stream.off('error', onError),
  };
}
