// A real Varnish (Debian's varnishd) in front of a test gateway, with the shipped configuration
// (docs/deploy/varnish.vcl) and only the backend's port changed, as an operator deploys it.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './dataset.ts';
import { root } from './gateway.ts';
import { freePort, reachable } from './redis.ts';

export const VARNISHD = '/usr/sbin/varnishd';

/** Skip outside CI when Varnish is not installed; in CI its absence is a failure (.ci/run installs it). */
export function varnishSkipReason(): string | false {
  if (existsSync(VARNISHD)) return false;
  if (process.env.CI) throw new Error('CI: no /usr/sbin/varnishd (.ci/run should have installed varnish)');
  return 'no /usr/sbin/varnishd (apt-get install varnish)';
}

export interface TestVarnish {
  url: string;
  /** Varnish's own counters (varnishstat -1), by name. */
  stats(): Record<string, number>;
  close(): Promise<void>;
}

export async function startVarnish(backendUrl: string): Promise<TestVarnish> {
  const dir = tempDir('varnish');
  chmodSync(dir, 0o755); // varnishd's worker runs as its own user and reads its working folder
  const backend = new URL(backendUrl);
  const vcl = readFileSync(join(root, 'docs/deploy/varnish.vcl'), 'utf8')
    .replace('.host = "127.0.0.1";', `.host = "${backend.hostname}";`)
    .replace('.port = "8080";', `.port = "${backend.port}";`);
  const vclFile = join(dir, 'service.vcl');
  writeFileSync(vclFile, vcl);
  const port = await freePort();
  const name = join(dir, 'n');
  const child: ChildProcess = spawn(
    VARNISHD,
    ['-F', '-f', vclFile, '-n', name, '-a', `127.0.0.1:${port}`, '-s', 'malloc,32m', '-T', 'none'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  for (let i = 0; i < 200 && !(await reachable(port)); i++) {
    if (child.exitCode !== null) throw new Error(`varnishd exited: ${stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  if (!(await reachable(port))) throw new Error(`varnishd did not listen on ${port}: ${stderr}`);
  return {
    url: `http://127.0.0.1:${port}`,
    stats() {
      const out = spawnSync('varnishstat', ['-n', name, '-1'], { encoding: 'utf8' }).stdout;
      return Object.fromEntries(
        out.split('\n').flatMap((line) => {
          const [key, value] = line.split(/\s+/);
          return key && value && /^\d+$/.test(value) ? [[key, Number(value)]] : [];
        }),
      );
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
