// The bench's run-wide context: options, what this machine has (wrk, nginx, taskset), the work
// folder, and the child processes to kill at exit. Every bench module reads it from here.
import { type ChildProcess, spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

export const { values: opt } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '32' },
    quick: { type: 'boolean', default: false },
    out: { type: 'string', default: 'docs/performance.md' },
  },
});
export const DURATION = opt.quick ? 2 : Number(opt.duration);
export const WARMUP = opt.quick ? 1 : Number(opt.warmup);
export const CONNECTIONS = Number(opt.connections);
export const ROUNDS = opt.quick ? 1 : Math.max(1, Number(opt.rounds));
export const root = resolve('.');
export const work = join(tmpdir(), `grain-bench-${process.pid}`);
rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
export const HAS_WRK = has('wrk');
export const HAS_NGINX = has('nginx');
export const HAS_TASKSET = has('taskset') && cpus().length >= 2;
export const pin = (cpu: number, argv: string[]) => (HAS_TASKSET ? ['taskset', '-c', String(cpu), ...argv] : argv);
// The load generator's side, autocannon included (it runs in this process), stays off the server's core.
if (HAS_TASKSET) spawnSync('taskset', ['-cp', '1', String(process.pid)], { stdio: 'ignore' });
export const children: ChildProcess[] = [];
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
    });
}
