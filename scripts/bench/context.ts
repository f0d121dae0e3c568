// The bench's run-wide context, made by an entry point when it runs (nothing happens at import):
// the options from argv, whether nginx is there, the work folder, and the child processes to kill
// at the end. Every bench function takes it as its first argument.
import { type ChildProcess, spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { grainKey, ROUTES } from '../../build/site-format.ts';

export interface Bench {
  /** The command as typed, for the report's first line. */
  command: string;
  duration: number;
  warmup: number;
  connections: number;
  rounds: number;
  /** Rounds of the servers loaded at once (load.ts, together): each is a ratio, and their median is read. */
  atOnceRounds: number;
  /** Where the report is written besides stdout, when asked for. */
  out?: string;
  work: string;
  /** The gateway's bundle for this run: inside the project, where its packages resolve. */
  bundleDir: string;
  hasNginx: boolean;
  children: ChildProcess[];
  /** The arguments that are not options, for an entry point that takes some (bench:compare's ref). */
  positionals: string[];
}

export const root = resolve('.');
/** The paths the bench requests, from the route table: one record (24 KB identity), health, registration. */
export const RECORD = grainKey('CWRS');
export const HEALTH = ROUTES.health.path;
export const REGISTER = ROUTES.register.path;
export const NGINX_MISSING =
  'nginx is not installed, so it is left out of this run: `apt-get update && apt-get install -y nginx` adds it';

/** The options every server bench takes; --quick is a smoke run of every scenario. */
function parseBenchArgs(argv: string[], defaultRounds: number) {
  const { values: v, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      duration: { type: 'string', default: '5' },
      rounds: { type: 'string', default: String(defaultRounds) },
      warmup: { type: 'string', default: '3' },
      connections: { type: 'string', default: '32' },
      'at-once-rounds': { type: 'string', default: '8' },
      quick: { type: 'boolean', default: false },
      out: { type: 'string' },
    },
  });
  return {
    duration: v.quick ? 2 : Number(v.duration),
    warmup: v.quick ? 1 : Number(v.warmup),
    connections: Number(v.connections),
    rounds: v.quick ? 1 : Math.max(1, Number(v.rounds)),
    atOnceRounds: v.quick ? 2 : Math.max(1, Number(v['at-once-rounds'])),
    out: v.out,
    positionals,
  };
}

const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;

/** `argv` run on CPU `cpu` only: 0 for the servers, 1 for the load generator. */
export const pin = (cpu: number, argv: string[]) => ['taskset', '-c', String(cpu), ...argv];

export interface EntryPoint {
  /** How many arguments that are not options it takes (0 unless said), and its usage line when they are wrong. */
  positionals?: number;
  usage?: string;
  /** --rounds when not given (3 unless said). */
  rounds?: number;
}

/**
 * An entry point's run: the context from argv; this process (which drains the gateways' logs) pinned
 * to the load generator's CPU 1, off the servers' CPU 0; then `main`, whose Markdown report goes to
 * stdout, and to --out FILE when given. Servers and the work folder go either way; a failure sets
 * the exit code. Speed is measured pinned or not at all: wrk, taskset and two cores are required.
 */
export async function runBench(argv: string[], main: (b: Bench) => Promise<string>, entry: EntryPoint = {}) {
  const options = parseBenchArgs(argv, entry.rounds ?? 3);
  if (options.positionals.length !== (entry.positionals ?? 0)) {
    console.error(entry.usage ?? `unexpected arguments: ${options.positionals.join(' ')}`);
    process.exitCode = 2;
    return;
  }
  const npmScript = process.env.npm_lifecycle_event;
  const command = npmScript ? `npm run ${npmScript}` : `tsx ${process.argv[1]}`;
  const b: Bench = {
    command: argv.length ? `${command} -- ${argv.join(' ')}` : command,
    ...options,
    work: join(tmpdir(), `grain-bench-${process.pid}`),
    bundleDir: join(root, 'dist', `bench-${process.pid}`),
    hasNginx: has('nginx'),
    children: [],
  };
  if (!has('wrk') || !has('taskset') || cpus().length < 2) {
    console.error('the bench needs wrk, taskset and two CPUs (apt-get install wrk)');
    process.exitCode = 1;
    return;
  }
  const cleanUp = () => {
    for (const c of b.children) c.kill('SIGKILL');
    rmSync(b.work, { recursive: true, force: true });
    rmSync(b.bundleDir, { recursive: true, force: true });
  };
  process.once('exit', cleanUp);
  mkdirSync(b.work, { recursive: true });
  spawnSync('taskset', ['-cp', '1', String(process.pid)], { stdio: 'ignore' });
  try {
    emitReport(await main(b), b.out);
  } catch (err) {
    console.error(err);
    process.exitCode = 1;
  } finally {
    cleanUp();
  }
}

/** A report to stdout, and into `out` only when one is given: never into docs/ by default. */
export function emitReport(report: string, out?: string) {
  console.log(`\n${report}`);
  if (!out) return;
  writeFileSync(resolve(out), `${report}\n`);
  console.error(`wrote ${out}`);
}
