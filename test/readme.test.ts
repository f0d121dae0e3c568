// The README's first commands, run as written, in order: `npm start` serves (building first, as no
// build is published), the registration line sets KEY, the record comes back with it, the sync
// line keeps a copy, and SIGTERM to the process the user started (npm) stops the service and frees
// the port. Only what a shared test machine needs differs: a free port for 8080, and temporary
// folders for ./site, ./var and the home folder.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { tempDir } from './helpers/dataset.ts';
import { root } from './helpers/gateway.ts';
import { freePort, reachable } from './helpers/redis.ts';

/** The README's shell blocks under "On a fresh machine", in order. */
function freshMachineBlocks(): string[] {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.slice(
    readme.indexOf('## On a fresh machine'),
    readme.indexOf('\n## ', readme.indexOf('## On a fresh machine') + 3),
  );
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

describe('the README, run as written', () => {
  let npm: ChildProcess | undefined;
  after(() => npm?.kill('SIGKILL'));

  it('starts, registers, reads, syncs, and stops on SIGTERM', async () => {
    const [start, readRecord, sync] = freshMachineBlocks();
    assert.match(start!, /npm start/);
    const port = await freePort();
    const home = tempDir('readme-home');
    const env = {
      ...process.env,
      PORT: String(port),
      STATE_DIR: tempDir('readme-var'),
      SITE_DIR: tempDir('readme-site'),
    };
    npm = spawn('npm', ['start'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    npm.stdout!.on('data', (d) => (log += d));
    npm.stderr!.on('data', (d) => (log += d));
    for (let i = 0; i < 600 && !(await reachable(port)); i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(await reachable(port), `npm start did not listen: ${log}`);

    const asWritten = (block: string) => block.replaceAll('localhost:8080', `localhost:${port}`);
    const script = `set -e\n${asWritten(readRecord!)}\necho\n${asWritten(sync!)}\n`;
    const run = spawnSync('bash', ['-c', script], { cwd: root, env: { ...env, HOME: home }, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(JSON.parse(run.stdout.split('\n')[0]!).grain_id, 'CWRS', 'the record, read with $KEY');
    assert.match(run.stdout, /synced: 23 new, 0 changed, 0 unchanged, 0 removed/);
    assert.ok(existsSync(join(home, 'grain-tables', 'grains', 'CWRS.json')), 'the copy is in the home folder');

    const exited = new Promise<number | null>((resolve) => npm!.once('exit', resolve));
    npm.kill('SIGTERM');
    await exited;
    for (let i = 0; i < 100 && (await reachable(port)); i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(await reachable(port), false, 'the port is free: nothing is left serving');
    assert.match(log, /"event":"stopped"/, 'the gateway drained and stopped');
  });
});
