// tier: full (the README's commands, run as written)
// The README's first commands, run as written, in order: `npm start` serves (bundling the gateway
// and building the dataset first, as neither exists), the registration line sets KEY, the record
// comes back with it, the sync lines install the client package and keep a copy, and SIGTERM to
// the process the user started (npm) stops the service and frees the port. The process listening
// is node on plain JavaScript, no loader, and the bundle's source map leads back to the TypeScript
// (docs/operations.md, "Running in production"). Only what a shared test machine needs differs: a
// free port for 8080, and temporary folders for ./site, ./var, the bundle and the home folder.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { SourceMap } from 'node:module';
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
  const dist = join(root, 'dist', `test-${process.pid}`); // inside the project: node_modules resolve from it
  after(() => {
    // npm and the gateway it started, whatever failed first: a gateway left behind would hold the
    // test runner's output open (npm start is its own process group: detached below)
    if (npm?.pid && npm.exitCode === null) process.kill(-npm.pid, 'SIGKILL');
    rmSync(dist, { recursive: true, force: true });
  });

  it('starts, registers, reads, syncs, and stops on SIGTERM', async () => {
    const [start, readRecord, sync] = freshMachineBlocks();
    assert.match(start!, /npm start/);
    const port = await freePort();
    const home = tempDir('readme-home');
    // a user's shell, not npm's: run under npm test, the environment holds npm's own variables
    // (npm_config_local_prefix names this checkout), which would send the README's npm install here
    const shell = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('npm_')));
    const env = {
      ...shell,
      PORT: String(port),
      STATE_DIR: tempDir('readme-var'),
      SITE_DIR: tempDir('readme-site'),
      DIST_DIR: dist,
    };
    npm = spawn('npm', ['start'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let log = '';
    npm.stdout!.on('data', (d) => (log += d));
    npm.stderr!.on('data', (d) => (log += d));
    for (let i = 0; i < 600 && !(await reachable(port)); i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(await reachable(port), `npm start did not listen: ${log}`);
    assert.match(log, /bundling: there is no .*\nbundled into .*\nno build is published in .*: building the dataset/);
    // npm execs node, and node runs the launcher, which imports the bundle: no tsx, no loader
    const listening = spawnSync('pgrep', ['-P', String(npm.pid)], { encoding: 'utf8' }).stdout.trim();
    const argv = readFileSync(`/proc/${listening}/cmdline`, 'utf8').split('\0').filter(Boolean);
    const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { start: string } };
    assert.equal(`exec node ${argv.slice(1).join(' ')}`, scripts.start, "npm start's node options and launcher");
    assert.equal(argv.at(-1), 'scripts/start.mjs');
    assert.match(argv[0]!, /(^|\/)node$/);
    assert.doesNotMatch(readFileSync(`/proc/${listening}/maps`, 'utf8'), /tsx/, 'no loader mapped in');
    // the bundle's code leads back to its TypeScript
    const bundle = readFileSync(join(dist, 'gateway.js'), 'utf8').split('\n');
    const line = bundle.findIndex((l) => l.includes('event: "listening"'));
    const map = new SourceMap(JSON.parse(readFileSync(join(dist, 'gateway.js.map'), 'utf8')));
    const origin = map.findEntry(line, bundle[line]!.indexOf('event'));
    assert.ok(
      'originalSource' in origin && origin.originalSource.endsWith('gateway/server.ts'),
      JSON.stringify(origin),
    );

    const asWritten = (block: string) => block.replaceAll('localhost:8080', `localhost:${port}`);
    const script = `set -e\n${asWritten(readRecord!)}\necho\n${asWritten(sync!)}\n`;
    // run where a user's own project is: the sync block installs the client package there
    const project = tempDir('readme-project');
    const run = spawnSync('bash', ['-c', script], { cwd: project, env: { ...env, HOME: home }, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(JSON.parse(run.stdout.split('\n')[0]!).grain_id, 'CWRS', 'the record, read with $KEY');
    assert.match(run.stdout, /synced: 23 new, 0 changed, 0 unchanged, 0 removed/);
    assert.ok(existsSync(join(home, 'grain-tables', 'grains', 'CWRS.json')), 'the copy is in the home folder');
    assert.ok(
      existsSync(join(project, 'node_modules', 'grain-tables-client', 'package.json')),
      'the package installed',
    );

    assert.equal(npm.exitCode, null, `npm start is still running: ${log}`);
    const exited = new Promise<number | null>((resolve) => npm!.once('exit', resolve));
    npm.kill('SIGTERM');
    await exited;
    for (let i = 0; i < 100 && (await reachable(port)); i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(await reachable(port), false, 'the port is free: nothing is left serving');
    assert.match(log, /"event":"stopped"/, 'the gateway drained and stopped');
  });
});
