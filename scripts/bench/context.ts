// The bench's run-wide context, made by an entry point when it runs (nothing happens at import):
// the options from argv, whether nginx is there, the work folder, and the child processes to kill
// at the end. Every bench function takes it as its first argument.
import { type ChildProcess, spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { readArgs, usageExit } from '../../build/cli-args.ts';
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
const BENCH_OPTIONS = {
  duration: { type: 'string', default: '5' },
  rounds: { type: 'string' },
  warmup: { type: 'string', default: '3' },
  connections: { type: 'string', default: '32' },
  'at-once-rounds': { type: 'string', default: '8' },
  quick: { type: 'boolean', default: false },
  out: { type: 'string' },
} as const;

const optionsHelp = (rounds: number) => `
  --duration S        seconds each measurement runs (default 5)
  --warmup S          seconds of load before each measurement (default 3)
  --rounds N          alternated rounds of each scenario (default ${rounds})
  --at-once-rounds N  rounds with every server loaded at once (default 8)
  --connections N     connections the load generator keeps open (default 32)
  --quick             a smoke run of every scenario: one short round
  --out FILE          write the report to FILE too

Needs wrk, taskset and two CPUs. Exit codes: 0 measured, 1 failed, 2 usage.`;

function parseBenchArgs(argv: string[], entry: EntryPoint) {
  const rounds = entry.rounds ?? 3;
  const spec = {
    command: benchCommand(),
    usage: `${entry.usage ?? ''}[--rounds N --duration S --warmup S --connections N --quick --out FILE]`.trim(),
    help: `${entry.help.trim()}\n${optionsHelp(rounds)}`,
    options: BENCH_OPTIONS,
    positionals: (entry.positionals ?? 0) > 0,
  };
  const { values: v, positionals } = readArgs(spec, argv);
  if (positionals.length !== (entry.positionals ?? 0))
    usageExit(spec, `give ${entry.positionals} argument(s) before the options, not ${positionals.length}`);
  for (const name of ['duration', 'warmup', 'connections', 'at-once-rounds', 'rounds'] as const) {
    const value = v[name];
    if (value !== undefined && !/^\d+$/.test(value))
      usageExit(spec, `--${name} must be a whole number, not "${value}"`);
  }
  return {
    duration: v.quick ? 2 : Number(v.duration),
    warmup: v.quick ? 1 : Number(v.warmup),
    connections: Number(v.connections),
    rounds: v.quick ? 1 : Math.max(1, Number(v.rounds ?? rounds)),
    atOnceRounds: v.quick ? 2 : Math.max(1, Number(v['at-once-rounds'])),
    out: v.out,
    positionals,
  };
}

/** The command as the user typed it: the npm script, else the file run with tsx. */
function benchCommand() {
  const npmScript = process.env.npm_lifecycle_event;
  return npmScript ? `npm run ${npmScript} --` : `tsx ${process.argv[1]}`;
}

const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;

/** `argv` run on CPU `cpu` only: 0 for the servers, 1 for the load generator. */
export const pin = (cpu: number, argv: string[]) => ['taskset', '-c', String(cpu), ...argv];

export interface EntryPoint {
  /** What --help says the entry point does, before the options every bench takes. */
  help: string;
  /** How many arguments that are not options it takes (0 unless said), and how the usage line names them. */
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
export async function runBench(argv: string[], main: (b: Bench) => Promise<string>, entry: EntryPoint) {
  const options = parseBenchArgs(argv, entry);
  const command = benchCommand();
  const b: Bench = {
    command: argv.length ? `${command} ${argv.join(' ')}` : command.replace(/ --$/, ''),
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
