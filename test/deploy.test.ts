// tier: full (systemd-analyze on the shipped unit)
// The shipped deployment files (docs/deploy/), read as their tools read them. The systemd unit is
// checked by systemd-analyze verify (any complaint fails) and holds the hardening docs/operations.md
// promises; the Containerfile's promises are checked here, and its steps are run by CI's
// production step (.ci/production.mjs), which needs three npm ci and so is not part of npm test.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DEFAULT_DIRS } from '../build/site-format.ts';
import { tempDir } from './helpers/dataset.ts';
import { root } from './helpers/gateway.ts';

const UNIT = join(root, 'docs/deploy/grain-gateway.service');
const CONTAINERFILE = join(root, 'docs/deploy/Containerfile');
const ANALYZE = '/usr/bin/systemd-analyze';
/** node's arguments as npm start runs the gateway (package.json): every launcher runs the same. */
const NODE_ARGS = (
  JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }
).scripts.start
  .replace(/^exec node /, '')
  .split(' ');

/** Every `Key=value` of the unit, the last one winning as in systemd (Environment= lines gathered). */
function unitSettings(text: string) {
  const settings = new Map<string, string>();
  const environment: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^(\w+)=(.*)$/.exec(line.trim());
    if (!m) continue;
    if (m[1] === 'Environment') for (const [, k, v] of m[2]!.matchAll(/(\w+)=(\S+)/g)) environment[k!] = v!;
    else settings.set(m[1]!, m[2]!);
  }
  return { settings, environment };
}

describe('docs/deploy: the systemd unit', () => {
  const text = readFileSync(UNIT, 'utf8');
  const { settings, environment } = unitSettings(text);

  it('passes systemd-analyze verify with nothing to say', {
    skip: !existsSync(ANALYZE) && !process.env.CI && 'no systemd-analyze',
  }, () => {
    const copy = join(tempDir('unit'), 'grain-gateway.service');
    copyFileSync(UNIT, copy);
    const run = spawnSync(ANALYZE, ['verify', copy], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stderr.trim(), '', 'a warning is a failure: systemd ignores what it does not understand');
    // and it would say something: a misspelt hardening line is caught
    copyFileSync(UNIT, copy);
    const broken = spawnSync(
      'sh',
      ['-c', `sed -i 's/^ProtectSystem=strict/ProtectSystem=strictly/' ${copy} && ${ANALYZE} verify ${copy}`],
      {
        encoding: 'utf8',
      },
    );
    assert.match(broken.stderr, /ProtectSystem|protect system/i);
  });

  it('runs node on the launcher as its own user, hardened, writing only STATE_DIR', () => {
    assert.equal(settings.get('ExecStart'), ['/usr/bin/node', ...NODE_ARGS].join(' '));
    assert.equal(NODE_ARGS.at(-1), 'scripts/start.mjs');
    assert.ok(settings.get('User') && settings.get('User') !== 'root');
    assert.equal(settings.get('ProtectSystem'), 'strict');
    assert.equal(settings.get('NoNewPrivileges'), 'yes');
    assert.equal(settings.get('CapabilityBoundingSet'), '');
    assert.ok(environment.STATE_DIR, 'STATE_DIR is set');
    assert.deepEqual(settings.get('ReadWritePaths')?.split(/\s+/), [environment.STATE_DIR]);
    assert.equal(
      `/var/lib/${settings.get('StateDirectory')}`,
      environment.STATE_DIR,
      'systemd makes it, owned by the user',
    );
    assert.equal(settings.get('KillSignal'), 'SIGTERM');
    assert.ok(Number(settings.get('TimeoutStopSec')) * 1000 > 10_000, 'longer than SHUTDOWN_GRACE_MS’s default');
  });
});

describe('docs/deploy: the Containerfile', () => {
  const lines = readFileSync(CONTAINERFILE, 'utf8')
    .split('\n')
    .filter((l) => l.trim() && !l.startsWith('#'));
  const runtime = lines.slice(lines.findLastIndex((l) => l.startsWith('FROM ')));
  const op = (name: string) => runtime.filter((l) => l.startsWith(`${name} `)).map((l) => l.slice(name.length + 1));

  it('has a build stage with every dependency, and a runtime stage with the production ones', () => {
    const build = lines.slice(
      0,
      lines.findLastIndex((l) => l.startsWith('FROM ')),
    );
    assert.match(build[0]!, /^FROM \S+ AS build$/);
    assert.deepEqual(
      build.filter((l) => l.startsWith('RUN ')),
      ['RUN npm ci --no-audit --no-fund', 'RUN npm run build'],
    );
    assert.ok(op('RUN').some((r) => r.startsWith('npm ci --omit=dev')));
    assert.ok(!op('COPY').some((c) => /^\.\s/.test(c)), 'the runtime stage copies no sources');
  });

  it('runs node on the launcher as PID 1, unprivileged, with STATE_DIR on a volume and a health check', () => {
    assert.deepEqual(
      op('CMD').map((c) => JSON.parse(c)),
      [['node', ...NODE_ARGS]],
    );
    assert.deepEqual(op('USER'), ['node']);
    assert.deepEqual(op('WORKDIR'), ['/app']);
    assert.deepEqual(
      op('VOLUME').map((v) => JSON.parse(v)),
      [[`/app/${DEFAULT_DIRS.state}`]],
    );
    const [check] = op('HEALTHCHECK');
    assert.match(check!, /CMD \["node", "-e", ".*\/health.*"\]$/);
  });
});
