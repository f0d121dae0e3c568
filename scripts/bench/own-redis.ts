// The Redis the benches measure the gateway on: a redis-server of the run's own on a free port,
// never a server that happens to answer on the machine (a developer's own data may be there). Plain
// (nothing kept on disk: what is measured is the gateway's round trips, not the server's disk) and
// not pinned (in production Redis has a machine of its own; on CPU 0 it would take the gateway's
// core); killed with the run's other children.
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import type { Bench } from './context.ts';
import { reachable } from './servers.ts';

export interface OwnRedis {
  /** REDIS_URL's value for it. */
  url: string;
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

/** The run's own redis-server, answering; null when redis-server is not installed. */
export async function startOwnRedis(b: Bench): Promise<OwnRedis | null> {
  if (spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status !== 0) return null;
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  const child = spawn('redis-server', args, { stdio: 'ignore' });
  b.children.push(child);
  for (let i = 0; i < 200 && !(await reachable(port)); i++) await new Promise((r) => setTimeout(r, 25));
  if (!(await reachable(port))) throw new Error(`the bench's own redis-server did not start on port ${port}`);
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((r) => {
        if (child.exitCode !== null || child.signalCode !== null) return r();
        child.once('exit', () => r());
        child.kill('SIGKILL');
      }),
  };
}
