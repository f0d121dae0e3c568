// The time at the start of a request's log line, kept as bytes: `{"time":"…",`. The whole ISO text is
// made once a second, and within the second only the three digits of the millisecond are rewritten:
// below some thousands of requests a second the millisecond changes on almost every request, and the
// text made per millisecond was most of a line's cost (docs/performance.md: the measurements behind
// the code).

const ZERO = 0x30;
export const ascii = (s: string) => Buffer.from(s, 'latin1');
/** The time as text, for events and unusual lines (rare): made when asked. */
export const isoTime = (ms: number) => new Date(ms).toISOString();

export class TimeStamp {
  /** `{"time":"…",` of the last time asked for. */
  part = ascii('{"time":"1970-01-01T00:00:00.000Z",');
  private lastMs = 0;
  private lastSecond = Number.NaN;

  /** The part for `now` (the clock's milliseconds). */
  at(now: number): Buffer {
    if (now === this.lastMs) return this.part;
    this.lastMs = now;
    const ms = Math.floor(now); // toISOString's millisecond
    const second = Math.floor(ms / 1000);
    if (second !== this.lastSecond) {
      this.lastSecond = second;
      const iso = isoTime(ms);
      if (iso.length + 11 !== this.part.length)
        this.part = ascii(`{"time":"${iso}",`); // a year past 9999
      else for (let i = 0; i < iso.length; i++) this.part[9 + i] = iso.charCodeAt(i);
      return this.part;
    }
    // `.mmmZ",` ends the part: the digits are the 6th to 4th bytes from its end
    const milli = ms - second * 1000;
    const at = this.part.length - 6;
    this.part[at] = ZERO + Math.floor(milli / 100);
    this.part[at + 1] = ZERO + (Math.floor(milli / 10) % 10);
    this.part[at + 2] = ZERO + (milli % 10);
    return this.part;
  }
}
