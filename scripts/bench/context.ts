// The bench's run-wide context: options, what this machine has (wrk, nginx, taskset), the work
// folder, and the child processes to kill at exit. Every bench module reads it from here.
import { type ChildProcess, spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { grainKey, ROUTES } from '../../build/site-format.ts';

export const { values: opt } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '32' },
    'at-once-rounds': { type: 'string', default: '8' },
    quick: { type: 'boolean', default: false },
    out: { type: 'string', default: 'docs/performance.md' },
  },
});
export const DURATION = opt.quick ? 2 : Number(opt.duration);
export const WARMUP = opt.quick ? 1 : Number(opt.warmup);
export const CONNECTIONS = Number(opt.connections);
export const ROUNDS = opt.quick ? 1 : Math.max(1, Number(opt.rounds));
/** Rounds of the servers loaded at once (load.ts, together): each is a ratio, and their median is read. */
export const AT_ONCE_ROUNDS = opt.quick ? 2 : Math.max(1, Number(opt['at-once-rounds']));
export const root = resolve('.');
export const work = join(tmpdir(), `grain-bench-${process.pid}`);
rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
/** The gateway's bundle for this run: inside the project, where its packages resolve. */
export const BUNDLE_DIR = join(root, 'dist', `bench-${process.pid}`);
const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
export const HAS_WRK = has('wrk');
export const HAS_NGINX = has('nginx');
export const NGINX_MISSING =
  'nginx is not installed, so it is left out of this run: ' +
  '`apt-get update && apt-get install -y nginx` (Debian) adds it';
export const HAS_TASKSET = has('taskset') && cpus().length >= 2;
export const pin = (cpu: number, argv: string[]) => (HAS_TASKSET ? ['taskset', '-c', String(cpu), ...argv] : argv);
// The load generator's side, autocannon included (it runs in this process), stays off the server's core.
if (HAS_TASKSET) spawnSync('taskset', ['-cp', '1', String(process.pid)], { stdio: 'ignore' });
export const children: ChildProcess[] = [];

/** The paths the bench requests, from the route table: one record (24 KB identity), health, registration. */
export const RECORD = grainKey('CWRS');
export const HEALTH = ROUTES.health.path;
export const REGISTER = ROUTES.register.path;
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});

/** A bench's entry: a failure sets the exit code; its servers and its work folder go either way. */
export function runBench(main: () => Promise<void>) {
  main()
    .catch((err) => {
      console.error(err);
      process.exitCode = 1;
    })
    .finally(() => {
      for (const c of children) c.kill('SIGKILL');
      rmSync(work, { recursive: true, force: true });
      rmSync(BUNDLE_DIR, { recursive: true, force: true });
    });
}
