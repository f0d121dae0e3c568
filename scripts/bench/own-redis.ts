// The Redis the benches measure the gateway on: a redis-server of the run's own on a free port,
// never a server that happens to answer on the machine (a developer's own data may be there). Plain
// (nothing kept on disk: what is measured is the gateway's round trips, not the server's disk) and
// not pinned (in production Redis has a machine of its own; on CPU 0 it would take the gateway's
// core); killed with the run's other children.
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { type Bench, pin } from './context.ts';
import { reachable } from './servers.ts';

export interface OwnRedis {
  /** REDIS_URL's value for it. */
  url: string;
  /** Its process id (its CPU time: /proc/PID/stat). */
  pid: number;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

/**
 * The run's own redis-server, answering; null when redis-server is not installed. `cpu`: pinned
 * there (bench:redis puts it beside the load generator, standing for a host of its own).
 */
export async function startOwnRedis(b: Bench, opts: { cpu?: number } = {}): Promise<OwnRedis | null> {
  if (spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status !== 0) return null;
  const port = await freePort();
  const argv = ['redis-server', '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  const [cmd, ...args] = opts.cpu === undefined ? argv : pin(opts.cpu, argv);
  const child = spawn(cmd!, args, { stdio: 'ignore', cwd: b.work });
  b.children.push(child);
  for (let i = 0; i < 200 && !(await reachable(port)); i++) await new Promise((r) => setTimeout(r, 25));
  if (!(await reachable(port))) throw new Error(`the bench's own redis-server did not start on port ${port}`);
  return {
    url: `redis://127.0.0.1:${port}`,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((r) => {
        if (child.exitCode !== null || child.signalCode !== null) return r();
        child.once('exit', () => r());
        child.kill('SIGKILL');
      }),
  };
}
