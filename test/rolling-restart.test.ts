// tier: full (gateway processes behind nginx)
// Upgrades (docs/operations.md, "Upgrading"), with the gateway as npm start runs it (the bundle,
// by node): the processes are the subject, so they are real ones.
// - REDIS_URL: two instances behind nginx with the shipped configuration (docs/deploy/nginx.conf,
//   only its ports changed). A stream of keyed requests runs while the new instance starts and
//   the old one gets SIGTERM: every request is answered 200, and the counts they carry are exactly
//   1..N, none lost, none twice.
// - The embedded store: one process holds STATE_DIR, so the new one starts once the old one has
//   stopped. The requests in flight at SIGTERM are answered, the hourly window goes on where it was,
//   and the gap (SIGTERM to the new process's first answer) is measured and reported (a figure,
//   not a timed assertion: docs/operations.md states it).
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { bundleNode } from '../scripts/bundle-node.mjs';
import { tempDir } from './helpers/dataset.ts';
import {
  type ChildGateway,
  get,
  realSiteDir,
  recordIssuedKey,
  register,
  root,
  spawnGateway,
} from './helpers/gateway.ts';
import { fileRedis, freePort, reachable, redisSkipReason, uniquePrefix } from './helpers/redis.ts';
import { suite } from './helpers/suite.ts';

const NGINX = '/usr/sbin/nginx';

function nginxSkipReason(): string | false {
  if (existsSync(NGINX)) return false;
  if (process.env.CI) throw new Error('CI: no /usr/sbin/nginx (.ci/run should have installed nginx)');
  return 'no /usr/sbin/nginx (apt-get install nginx)';
}

const dist = join(root, 'dist', `test-rolling-${process.pid}`); // inside the project: node_modules resolve
after(() => rmSync(dist, { recursive: true, force: true }));

/** npm start's process (node scripts/start.mjs on the bundle) on a fixed port. */
const startBundled = (port: number, env: Record<string, string>) =>
  spawnGateway({ PORT: String(port), DIST_DIR: dist, ...env }, [join(root, 'scripts/start.mjs')]);

async function stopWithSigterm(gateway: ChildGateway) {
  gateway.child.kill('SIGTERM');
  assert.equal(await gateway.exited, 0, gateway.output.join(''));
  assert.match(gateway.output.join(''), /"event":"stopped","in_flight_left":0/);
}

/** Keyed requests, `lanes` at a time, until stop() is called; every answer's status and count. */
function keyedStream(base: string, key: string, lanes = 4) {
  const answers: { status: number; used: number }[] = [];
  let running = true;
  const done = Promise.all(
    Array.from({ length: lanes }, async () => {
      while (running) {
        const res = await get(base, '/api/grains/CWRS', key);
        answers.push({ status: res.status, used: Number(res.headers['x-ratelimit-used']) });
      }
    }),
  );
  const servedAtLeast = async (n: number) => {
    while (answers.length < n) await new Promise((r) => setTimeout(r, 5));
  };
  const stop = () => {
    running = false;
    return done;
  };
  return { answers, servedAtLeast, stop };
}

/** nginx in front of two ports, with the shipped server and upstream blocks. */
async function startNginx(ports: [number, number]): Promise<{ url: string; child: ChildProcess }> {
  const dir = tempDir('nginx');
  for (const sub of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, sub));
  const port = await freePort();
  const shipped = readFileSync(join(root, 'docs/deploy/nginx.conf'), 'utf8')
    .replace('127.0.0.1:8081', `127.0.0.1:${ports[0]}`)
    .replace('127.0.0.1:8082', `127.0.0.1:${ports[1]}`)
    .replace('listen 127.0.0.1:8080', `listen 127.0.0.1:${port}`);
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((s) => `${s}_temp_path ${join(dir, s)};`);
  writeFileSync(
    join(dir, 'nginx.conf'),
    `daemon off;\nmaster_process off;\npid ${join(dir, 'nginx.pid')};\nerror_log ${join(dir, 'error.log')} warn;\n` +
      `events { worker_connections 512; }\nhttp {\naccess_log off;\n${temp.join('\n')}\n${shipped}\n}\n`,
  );
  const child = spawn(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')], {
    stdio: 'ignore',
  });
  after(() => child.kill('SIGTERM')); // one process (master_process off): nothing is left behind
  for (let i = 0; i < 200 && !(await reachable(port)); i++) await new Promise((r) => setTimeout(r, 25));
  assert.ok(await reachable(port), `nginx did not start: ${readFileSync(join(dir, 'error.log'), 'utf8')}`);
  return { url: `http://127.0.0.1:${port}`, child };
}

const skip = (await redisSkipReason()) || nginxSkipReason();
const redisUrl = fileRedis();
suite('upgrades: a rolling restart, and the embedded store’s gap', false, () => {
  before(() => bundleNode(dist));

  it('a start with no build and nothing to build from is refused in a sentence; the gateway never builds', () => {
    const env = {
      ...process.env,
      DIST_DIR: dist,
      SITE_DIR: tempDir('no-site'),
      DATASET_DIR: join(tempDir('no-dataset'), 'none'),
      STATE_DIR: tempDir('no-state'),
      PORT: '0',
    };
    for (const [what, script, sentence] of [
      [
        'npm start',
        'scripts/start.mjs',
        /^start-up refused: no build is published in .* and there is no dataset in .*\.$/,
      ],
      [
        'the gateway',
        join(dist, 'gateway.js'),
        /^start-up refused: no build is published in .*: run npm run build .*\.$/,
      ],
    ] as const) {
      const run = spawnSync(process.execPath, [script], { cwd: root, env, encoding: 'utf8' });
      assert.equal(run.status, 1, `${what}: ${run.stderr}`);
      assert.match(run.stderr.trim(), sentence, what);
      assert.equal(run.stdout, '', what);
    }
  });

  it('REDIS_URL behind nginx: a rolling restart loses no request and no count', { skip }, async () => {
    const env = {
      REDIS_URL: await redisUrl(),
      REDIS_KEY_PREFIX: uniquePrefix(),
      SITE_DIR: realSiteDir(),
      STATE_DIR: tempDir('rolling-state'),
      RATE_LIMIT_PER_HOUR: '100000',
    };
    const ports: [number, number] = [await freePort(), await freePort()];
    const old = await startBundled(ports[0], env);
    const nginx = await startNginx(ports);
    const key = await register(nginx.url, 'rolling@example.com');
    const stream = keyedStream(nginx.url, key);
    await stream.servedAtLeast(100);
    const next = await startBundled(ports[1], env); // the new one first, then the old one stops
    await stream.servedAtLeast(stream.answers.length + 50);
    await stopWithSigterm(old);
    await stream.servedAtLeast(stream.answers.length + 100); // now all on the new one
    await stream.stop();

    assert.deepEqual(
      stream.answers.filter((a) => a.status !== 200),
      [],
      'every request across the restart is answered 200',
    );
    const counts = stream.answers.map((a) => a.used).sort((a, b) => a - b);
    assert.deepEqual(
      counts,
      Array.from({ length: counts.length }, (_, i) => i + 1),
      'each counted once',
    );
    const last = await get(nginx.url, '/api/grains', key);
    assert.equal(last.headers['x-ratelimit-used'], String(counts.length + 1));
    const served = (g: ChildGateway) => g.output.join('').match(/"path":"\/api\/grains\/CWRS","status":200/g)?.length;
    assert.ok(served(old)! > 0 && served(next)! > 0, 'both instances served part of the stream');
    await stopWithSigterm(next);
  });

  it('the embedded store: in-flight requests finish, the window survives, the gap is measured', async (t) => {
    const env = { SITE_DIR: realSiteDir(), STATE_DIR: tempDir('restart-state'), RATE_LIMIT_PER_HOUR: '100000' };
    const port = await freePort();
    const old = await startBundled(port, env);
    const key = await register(old.url, 'restart@example.com');
    for (let i = 0; i < 20; i++) assert.equal((await get(old.url, '/api/grains/CWRS', key)).status, 200);
    // a registration in flight at SIGTERM: its headers are in, its body comes after the signal
    const body = JSON.stringify({ email: 'in-flight@example.com' });
    const headers = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) };
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/api/register', headers, agent: false });
    const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
      req.on('response', (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, text }));
      });
      req.on('error', reject);
    });
    req.write(body.slice(0, 5));
    await new Promise((r) => setTimeout(r, 200)); // no hook tells when the headers are read: a real process
    const sigterm = performance.now();
    old.child.kill('SIGTERM'); // the deploy: stop the old process, then start the new one
    await new Promise((r) => setTimeout(r, 100));
    req.end(body.slice(5));
    const registered = await answer;
    assert.equal(registered.status, 201, `the request in flight at SIGTERM is answered: ${registered.text}`);
    assert.equal(await old.exited, 0);
    const exited = performance.now();
    const next = await startBundled(port, env);
    const first = await get(next.url, '/api/grains/CWRS', key);
    const gapMs = performance.now() - sigterm;
    assert.equal(first.status, 200);
    assert.equal(first.headers['x-ratelimit-used'], '21', 'the hour counted before the restart goes on');
    const late = JSON.parse(registered.text).api_key;
    recordIssuedKey(late);
    assert.equal((await get(next.url, '/api/grains', late)).status, 200, 'the key issued during the drain works');
    const startMs = performance.now() - exited;
    t.diagnostic(
      `embedded store restart gap: ${Math.round(gapMs)} ms from SIGTERM to the new process's first answer ` +
        `(the old one draining a request held open 100 ms: ${Math.round(gapMs - startMs)} ms; the new one starting: ` +
        `${Math.round(startMs)} ms)`,
    );
    await stopWithSigterm(next);
  });
});
