// Where the logger's lines go before the output takes them: encoded into a chunk as they are made, so
// no line lives on as a JS string (held as strings until the next write, they outlived young-generation
// collections at high request rates and were copied to the old one: docs/performance.md, the
// measurements behind the code), and written when the chunk is full or flushMs after its first line.
//
// When the output says it is backed up (a log reader slower than the requests), chunks wait, up to
// MAX_HELD_BYTES, and further lines are dropped and counted, said once it drains: memory stays bounded
// whatever reads the log (a starved reader on the pipe grew RSS without bound before this).

export interface LogOutput {
  /**
   * Takes a chunk of whole lines (UTF-8) and may keep it: the logger never writes into a chunk it
   * handed over. false means the output is backed up (a stream over its buffer).
   */
  write(chunk: Buffer): boolean | undefined;
  /** Calls back once a backed-up output has room again. */
  onDrain?(resume: () => void): void;
}

/** Lines held while the output is backed up; beyond this they are counted and dropped. */
const MAX_HELD_BYTES = 1 << 20;
/** Lines are encoded into a buffer of this size and written when it is full or flushMs passed. */
const CHUNK_BYTES = 64 * 1024;
const ZERO = 0x30;

export class LogChunks {
  /** The chunk lines are written into, and how much of it they fill: the logger writes bytes here itself. */
  chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  used = 0;
  /** Filled chunks not yet written (the output is backed up), and their bytes. */
  private held: Buffer[] = [];
  private heldBytes = 0;
  private timer: NodeJS.Timeout | null = null;
  private backedUp = false;
  private dropped = 0;

  constructor(
    private readonly output: LogOutput,
    private readonly flushMs: number,
    /** Told, once the output drains, how many lines were dropped meanwhile. */
    private readonly onDropped: (lines: number) => void,
  ) {}

  /** Whether a line now is dropped: the output is backed up and the held lines are at their bound. */
  get full() {
    return this.backedUp && this.heldBytes + this.used >= MAX_HELD_BYTES;
  }

  /** The current chunk's lines join the held ones; a new chunk takes the next lines. */
  private seal() {
    if (this.used === 0) return;
    this.held.push(this.chunk.subarray(0, this.used));
    this.heldBytes += this.used;
    this.chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    this.used = 0;
  }

  /** Hands the held lines to the output, unless it is backed up. */
  readonly flush = () => {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.seal();
    if (this.backedUp || this.heldBytes === 0) return;
    const data = this.held.length === 1 ? this.held[0]! : Buffer.concat(this.held, this.heldBytes);
    this.held = [];
    this.heldBytes = 0;
    if (this.output.write(data) === false && this.output.onDrain) {
      this.backedUp = true;
      this.output.onDrain(() => {
        this.backedUp = false;
        if (this.dropped > 0) {
          this.onDropped(this.dropped);
          this.dropped = 0;
        }
        this.flush();
      });
    }
  };

  /** Lines are written at the latest flushMs after the first of them. */
  schedule() {
    if (this.timer) return;
    this.timer = setTimeout(this.flush, this.flushMs);
    this.timer.unref();
  }

  /** A whole line as a string, encoded into the chunk (dropped and counted while full). */
  push(line: string) {
    if (this.full) {
      this.dropped++;
      return;
    }
    const most = line.length * 3; // UTF-8 bytes of a UTF-16 string, at most
    if (this.used + most > CHUNK_BYTES) {
      this.flush();
      if (most > CHUNK_BYTES) {
        // a line longer than a chunk (an event with a long message) goes as a chunk of its own
        const own = Buffer.from(line);
        this.held.push(own);
        this.heldBytes += own.length;
        this.flush();
        return;
      }
    }
    this.used += this.chunk.write(line, this.used);
    this.schedule();
  }

  /** Room for `n` more bytes in the chunk: flushed first when it has not. */
  room(n: number) {
    if (this.used + n > CHUNK_BYTES) this.flush();
  }

  bytes(b: Uint8Array) {
    this.chunk.set(b, this.used);
    this.used += b.length;
  }

  byte(c: number) {
    this.chunk[this.used++] = c;
  }

  /** A whole number below 2^53, in decimal. */
  digits(n: number) {
    let end = this.used + 1;
    for (let x = n; x >= 10; x = Math.floor(x / 10)) end++;
    this.used = end;
    do {
      this.chunk[--end] = ZERO + (n % 10);
      n = Math.floor(n / 10);
    } while (n > 0);
  }
}
