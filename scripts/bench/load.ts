// Driving load and reading results: wrk, the paced client for the p99 at a fixed
// rate, CPU time per request from /proc, and rounds (alternated, or all targets at once) with medians.
import { execFile, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Bench, pin, REGISTER, root } from './context.ts';

/** The open-loop client, run as its own process on the load generator's CPU (latencyAt). */
const PACED_LOAD = fileURLToPath(new URL('./paced-load.ts', import.meta.url));

export interface Load {
  path: string;
  headers?: Record<string, string>;
  /** A file of keys, one per line, sent in turn as X-API-Key. */
  keysFile?: string;
  /** POST /api/register with a new e-mail each time. */
  registrations?: boolean;
}

export interface Result {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /**
   * CPU time of the server process (user + system, all threads) per request, in µs: steadier than
   * req/s on a shared machine.
   */
  cpuUs?: number;
  /** req/s of each round, when the figures are medians of rounds. */
  all?: number[];
  /** CPU µs a request of each round, likewise. */
  cpuEach?: number[];
}

function wrkScript(load: Load): string {
  const headers = Object.entries(load.headers ?? {})
    .map(([k, v]) => `h[${JSON.stringify(k)}] = ${JSON.stringify(v)}`)
    .join('\n');
  return `
local keys = {}
${load.keysFile ? `for line in io.lines(${JSON.stringify(load.keysFile)}) do keys[#keys + 1] = line end` : ''}
local n = 0
local tid = 0
local threads = 0
function setup(thread) thread:set("tid", threads); threads = threads + 1 end
request = function()
  n = n + 1
  local h = {}
  ${headers}
  ${load.keysFile ? 'h["X-API-Key"] = keys[(n * 7919 + tid * 104729) % #keys + 1]' : ''}
  ${
    load.registrations
      ? `h["Content-Type"] = "application/json"\n  return wrk.format("POST", ${JSON.stringify(REGISTER)}, h, ` +
        'string.format(\'{"email":"b%d-%d-%d@example.com"}\', os.time(), tid, n))'
      : `return wrk.format("GET", ${JSON.stringify(load.path)}, h)`
  }
end`;
}

const toMs = (s: string) => {
  const m = /([\d.]+)(us|ms|s)/.exec(s)!;
  return Number(m[1]) * (m[2] === 'us' ? 0.001 : m[2] === 's' ? 1000 : 1);
};

export async function drive(b: Bench, url: string, load: Load, seconds: number): Promise<Result> {
  const script = join(b.work, `load-${Math.random().toString(36).slice(2)}.lua`);
  writeFileSync(script, wrkScript(load));
  const argv = pin(1, ['wrk', '-t1', `-c${b.connections}`, `-d${seconds}s`, '--latency', '-s', script, url]);
  // asynchronous, so that several targets can be loaded at once (together, below)
  const out = await new Promise<string>((res, rej) =>
    execFile(argv[0]!, argv.slice(1), { encoding: 'utf8' }, (err, stdout) => (err ? rej(err) : res(stdout))),
  );
  const pct = (p: string) => toMs(new RegExp(`^\\s+${p}%\\s+(\\S+)`, 'm').exec(out)?.[1] ?? '0ms');
  const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0),
    p50: pct('50'),
    p99: pct('99'),
    errors: errors ? errors.slice(1).reduce((a, b) => a + Number(b), 0) : 0,
  };
}

/**
 * The p99 latency at a fixed rate: paced-load.ts, an open-loop client on the load generator's CPU
 * (wrk cannot hold a rate).
 */
export async function latencyAt(b: Bench, url: string, load: Load, rate: number): Promise<number> {
  const args = [url + load.path, String(Math.round(rate)), String(b.duration), load.keysFile ?? ''];
  const argv = pin(1, [process.execPath, '--import', 'tsx', PACED_LOAD, ...args]);
  const r = spawnSync(argv[0]!, argv.slice(1), { cwd: root, encoding: 'utf8' });
  const line = r.stdout.trim().split('\n').at(-1) ?? '{}';
  return (JSON.parse(line) as { p99?: number }).p99 ?? NaN;
}

/** utime + stime of a process, in seconds (/proc/PID/stat fields 14 and 15, in clock ticks of 10 ms). */
const cpuSeconds = (pid: number) => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
};

async function measure(b: Bench, url: string, load: Load, pid?: number): Promise<Result> {
  await drive(b, url, load, b.warmup);
  const cpu0 = pid ? cpuSeconds(pid) : NaN;
  const r = await drive(b, url, load, b.duration);
  if (pid) r.cpuUs = ((cpuSeconds(pid) - cpu0) * 1e6) / (r.rps * b.duration);
  return r;
}

export interface Target {
  name: string;
  url: string;
  /** For the CPU time per request (not for nginx, whose worker is another process). */
  pid?: number;
  load: Load;
}

export const median = (xs: number[]) => {
  const v = xs.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  if (v.length === 0) return NaN;
  const m = Math.floor(v.length / 2);
  return v.length % 2 ? v[m]! : (v[m - 1]! + v[m]!) / 2;
};

/**
 * Each target measured `b.rounds` times, in turn (each round starts one target later, so no target
 * always follows the same one), all of them up throughout. Per target, the median of each figure.
 */
export async function rounds(b: Bench, targets: Target[]): Promise<Map<string, Result>> {
  const runs = new Map<string, Result[]>(targets.map((t) => [t.name, []]));
  for (let r = 0; r < b.rounds; r++) {
    for (let i = 0; i < targets.length; i++) {
      const t = targets[(i + r) % targets.length]!;
      runs.get(t.name)!.push(await measure(b, t.url, t.load, t.pid));
    }
  }
  const out = new Map<string, Result>();
  for (const [name, rs] of runs) {
    out.set(name, {
      rps: median(rs.map((x) => x.rps)),
      p50: median(rs.map((x) => x.p50)),
      p99: median(rs.map((x) => x.p99)),
      errors: rs.reduce((a, x) => a + x.errors, 0),
      cpuUs: median(rs.map((x) => x.cpuUs ?? NaN)),
      all: rs.map((x) => x.rps),
      cpuEach: rs.map((x) => x.cpuUs ?? NaN),
    });
  }
  return out;
}

/**
 * Every target loaded at once, `count` times (one wrk each, all on the load generator's CPU): the
 * servers share CPU 0 at the same moments, so whatever else the machine does falls on all of them
 * alike. Per target, each round's CPU time a request (`each`, compared within the round by
 * `atOnceRatio`) and their median. Steadier than alternated rounds for a difference of a few
 * percent (docs/performance.md, Method).
 */
export async function together(b: Bench, targets: Target[], count = b.rounds) {
  const each = new Map<string, number[]>(targets.map((t) => [t.name, []]));
  await Promise.all(targets.map((t) => drive(b, t.url, t.load, b.warmup)));
  for (let r = 0; r < count; r++) {
    const cpu0 = targets.map((t) => cpuSeconds(t.pid!));
    const results = await Promise.all(targets.map((t) => drive(b, t.url, t.load, b.duration)));
    for (const [i, t] of targets.entries())
      each.get(t.name)!.push(((cpuSeconds(t.pid!) - cpu0[i]!) * 1e6) / (results[i]!.rps * b.duration));
  }
  return new Map([...each].map(([name, us]) => [name, { cpuUs: median(us), each: us }]));
}
export type AtOnce = Awaited<ReturnType<typeof together>>;

/** `of`'s CPU time a request ÷ `per`'s, round by round while loaded at once: median and range. */
export function atOnceRatio(atOnce: AtOnce, of: string, per: string) {
  const p = atOnce.get(per)!.each;
  const r = atOnce.get(of)!.each.map((x, i) => x / p[i]!);
  return { median: median(r), lowest: Math.min(...r), highest: Math.max(...r) };
}

/** A process's RSS in MiB: its peak (VmHWM) or now (VmRSS). */
export const rssOf = (pid: number, field: 'VmHWM' | 'VmRSS' = 'VmHWM') => {
  try {
    return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
  } catch {
    return NaN;
  }
};

export function probe(url: string, path: string, headers: Record<string, string>, method = 'GET', body?: string) {
  return new Promise<{ status: number; headers: [string, string][]; body: Buffer }>((res, rej) => {
    const u = new URL(url + path);
    // a fresh connection each time: a kept-alive one may have been closed while idle
    const req = httpRequest(
      { host: u.hostname, port: u.port, path: u.pathname + u.search, method, headers, agent: false },
      (r) => {
        const chunks: Buffer[] = [];
        r.on('data', (c) => chunks.push(c));
        r.on('end', () => {
          const h: [string, string][] = [];
          for (let i = 0; i < r.rawHeaders.length; i += 2) {
            const k = r.rawHeaders[i]!;
            if (!/^(date|connection|keep-alive|transfer-encoding)$/i.test(k)) h.push([k, r.rawHeaders[i + 1]!]);
          }
          res({ status: r.statusCode!, headers: h, body: Buffer.concat(chunks) });
        });
      },
    );
    req.on('error', rej);
    req.end(body);
  });
}
