// tier: full (systemd-analyze on the shipped units)
// docs/deploy's timer for the signed editions (docs/operations.md, "Signed editions"): the timer and
// its service pass systemd-analyze verify, the service runs the command that re-signs the
// timestamp as the gateway's user with the gateway's folders, and the Containerfile says how.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ENTRIES } from '../scripts/bundle-node.mjs';
import { tempDir } from './helpers/dataset.ts';
import { root } from './helpers/gateway.ts';

const DEPLOY = join(root, 'docs/deploy');
const ANALYZE = '/usr/bin/systemd-analyze';
const settingsOf = (file: string) => {
  const lines = readFileSync(join(DEPLOY, file), 'utf8').split('\n');
  const settings = new Map<string, string>();
  // Environment= may be written on several lines: they add up
  for (const m of lines.map((l) => /^(\w+)=(.*)$/.exec(l.trim())))
    if (m) settings.set(m[1]!, m[1] === 'Environment' ? `${settings.get(m[1]) ?? ''} ${m[2]}` : m[2]!);
  return settings;
};
const environment = (s: Map<string, string>) =>
  Object.fromEntries([...s.get('Environment')!.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1], m[2]]));

describe('docs/deploy: the timer that re-signs the timestamp', () => {
  it('passes systemd-analyze verify with nothing to say', {
    skip: !existsSync(ANALYZE) && !process.env.CI && 'no systemd-analyze',
  }, () => {
    const dir = tempDir('tuf-units');
    for (const f of ['grain-tuf-timestamp.service', 'grain-tuf-timestamp.timer'])
      copyFileSync(join(DEPLOY, f), join(dir, f));
    const run = spawnSync(
      ANALYZE,
      ['verify', join(dir, 'grain-tuf-timestamp.timer'), join(dir, 'grain-tuf-timestamp.service')],
      { encoding: 'utf8' },
    );
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stderr.trim(), '');
  });

  it('runs daily, catching up a missed run, the command as the gateway user with its folders', () => {
    const timer = settingsOf('grain-tuf-timestamp.timer');
    assert.equal(timer.get('OnCalendar'), 'daily');
    assert.equal(timer.get('Persistent'), 'true');
    const service = settingsOf('grain-tuf-timestamp.service');
    const gateway = settingsOf('grain-gateway.service');
    assert.equal(service.get('ExecStart'), '/usr/bin/node scripts/run.mjs tuf timestamp');
    assert.ok(Object.hasOwn(ENTRIES, 'tuf'), 'the command has its bundle');
    assert.equal(service.get('User'), gateway.get('User'));
    assert.equal(service.get('WorkingDirectory'), gateway.get('WorkingDirectory'));
    const env = environment(service);
    assert.equal(env.STATE_DIR, environment(gateway).STATE_DIR);
    assert.equal(env.SITE_DIR, environment(gateway).SITE_DIR);
    assert.equal(service.get('ReadWritePaths'), `${env.SITE_DIR}/tuf`);
    assert.match(readFileSync(join(DEPLOY, 'Containerfile'), 'utf8'), /node scripts\/run\.mjs tuf timestamp/);
  });
});
