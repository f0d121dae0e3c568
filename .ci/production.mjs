// @ts-check
// CI's production step (.ci/run; docs/operations.md, "CI"): production the way operators run it,
// each in a clean folder made from the files git knows (what a fresh clone holds):
// 1. `npm ci --omit=dev && npm run build && npm start`: no devDependency is installed (so no tsx),
//    the build publishes, the gateway serves a keyed request, `npm run sync` copies the tables with
//    it, `npm run grade` grades from the copy, `npm run client:pack` packs the client package,
//    `npm run backup` writes a copy and
//    refuses to overwrite it, SIGTERM stops it; a start with no build and nothing to build from
//    is refused in one sentence.
// 2. docs/deploy/Containerfile, replayed: every stage in a folder of its own standing for the
//    image's `/`, every COPY and RUN as written and in order (no container engine can pull a base
//    image here). The image's `node` user is played by `nobody`: the one `chown` to it is applied
//    to nobody, and CMD and HEALTHCHECK run as nobody, so the runtime stage is shown to work
//    unprivileged. Then it serves a keyed request, the state lands on the VOLUME, and the
//    HEALTHCHECK passes.
// better-sqlite3 is compiled once: CI's own `npm ci` in the checkout compiles it (no prebuilt binary
// can be fetched here), and each clean folder's install is offered that binary as a local prebuilt,
// which prebuild-install takes exactly as it takes one it downloads; every install runs in full.
// The two parts run side by side, each in its own folders and on its own ports.
// Plain JavaScript: it needs nothing but node, npm, git and tar. Three npm ci, so it is a CI step,
// not part of npm test. Exits non-zero on the first failure, saying what failed.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const work = mkdtempSync(join(tmpdir(), 'grain-production-'));
chmodSync(work, 0o755); // the replayed image's user (nobody) reads its way down to the stage
const keep = process.env.KEEP_TEST_DIRS === '1';
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const devDependencies = Object.keys(pkg.devDependencies ?? {});
/**
 * Every process started, so that a failure in one part stops the other part's too: a server with
 * its process group (npm start's node under npm), a command itself.
 * @type {import('node:child_process').ChildProcess[]}
 */
const started = [];
process.on('exit', () => {
  for (const child of started) {
    if (child.exitCode !== null || child.signalCode !== null || !child.pid) continue;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      child.kill('SIGKILL'); // not a group leader: a command run()
    }
  }
  // retried: a process killed just now may still be letting go of its files
  if (!keep) rmSync(work, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

/** One line of progress, named by the part of the step it comes from (the parts run side by side). */
const say = (/** @type {string} */ part, /** @type {string} */ line) => console.log(`production (${part}): ${line}`);

/** The files git knows in this checkout, as they are (a fresh clone, with the uncommitted edits). */
function cleanCopy(/** @type {string} */ to, ignored = /** @type {string[]} */ ([])) {
  const list = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
  });
  assert.equal(list.status, 0, list.stderr);
  for (const file of list.stdout.split('\0').filter(Boolean)) {
    if (ignored.includes(file.split('/')[0]) || !existsSync(join(root, file))) continue;
    mkdirSync(dirname(join(to, file)), { recursive: true });
    cpSync(join(root, file), join(to, file));
  }
}

/**
 * A command run to its end (asynchronously: the two parts of this step run side by side), its
 * output returned; its exit code must be `expect`.
 * @param {string} command @param {string[]} args @param {string} cwd
 * @param {Record<string, string>} [env] @param {number} [expect]
 * @returns {Promise<string>}
 */
function run(command, args, cwd, env = {}, expect = 0) {
  // JOBS: node-gyp compiles better-sqlite3 on every core when no prebuilt binary is offered
  const child = spawn(command, args, { cwd, env: { JOBS: 'max', ...prebuilt, ...process.env, ...env } });
  started.push(child);
  const chunks = /** @type {Buffer[]} */ ([]);
  child.stdout.on('data', (c) => chunks.push(c));
  child.stderr.on('data', (c) => chunks.push(c));
  return new Promise((resolvePromise, reject) => {
    child.on('error', reject);
    child.on('close', (status) => {
      const output = Buffer.concat(chunks).toString();
      if (status === expect) resolvePromise(output);
      else reject(new Error(`${command} ${args.join(' ')} in ${cwd} exited ${status}, not ${expect}:\n${output}`));
    });
  });
}

/**
 * The checkout's compiled better-sqlite3 as prebuild-install's local prebuilt (named as it names a
 * download: package, version, Node's ABI, platform, architecture), with the environment that points
 * installs at it; none where the checkout has no compiled binary (its install fetched one, or none ran).
 * @returns {Record<string, string>}
 */
function offerCompiledSqlite() {
  const pkgDir = join(root, 'node_modules', 'better-sqlite3');
  const binary = 'build/Release/better_sqlite3.node';
  if (!existsSync(join(pkgDir, binary))) return {};
  const { version } = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
  const dir = join(work, 'prebuilds');
  mkdirSync(dir);
  const abi = process.versions.modules;
  const name = `better-sqlite3-v${version}-node-v${abi}-${process.platform}-${process.arch}.tar.gz`;
  const tar = spawnSync('tar', ['-czf', join(dir, name), '-C', pkgDir, binary], { encoding: 'utf8' });
  assert.equal(tar.status, 0, tar.stderr);
  return { npm_config_better_sqlite3_local_prebuilds: dir };
}
const prebuilt = offerCompiledSqlite();

/** A clean folder's better-sqlite3 came from the offered binary: node-gyp left no objects there. */
function notCompiledAgain(/** @type {string} */ dir) {
  if (!prebuilt.npm_config_better_sqlite3_local_prebuilds) return;
  const objects = join(dir, 'node_modules', 'better-sqlite3', 'build', 'Release', 'obj.target');
  assert.ok(!existsSync(objects), `better-sqlite3 was compiled again in ${dir}: the offered binary was not taken`);
}

/** @returns {Promise<number>} */
const freePort = () =>
  new Promise((res, rej) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const address = /** @type {import('node:net').AddressInfo} */ (srv.address());
      srv.close(() => res(address.port));
    });
    srv.on('error', rej);
  });

/**
 * Starts a server process; resolves when /health answers ok, with its output so far.
 * @param {string} command @param {string[]} args @param {string} cwd @param {Record<string, string>} env
 */
async function serve(command, args, cwd, env) {
  const child = spawn(command, args, {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // a group of its own, killed whole if this step fails (npm start runs node under npm)
  });
  started.push(child);
  const output = /** @type {string[]} */ ([]);
  child.stdout?.on('data', (c) => output.push(String(c)));
  child.stderr?.on('data', (c) => output.push(String(c)));
  const exited = new Promise((res) => child.once('exit', (code) => res(code)));
  const base = `http://127.0.0.1:${env.PORT}`;
  for (let i = 0; i < 600; i++) {
    const health = await fetch(`${base}/health`).then(
      (r) => r.json(),
      () => null,
    );
    if (health?.status === 'ok') return { child, base, output, exited };
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${command} ${args.join(' ')} did not serve:\n${output.join('')}`);
}

/** Registers, then reads a record with the key: the keyed request an operator checks first. */
async function keyedRequest(/** @type {string} */ base) {
  const registered = await fetch(`${base}/api/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'operator@example.com' }),
  });
  assert.equal(registered.status, 201);
  const { api_key } = await registered.json();
  const record = await fetch(`${base}/api/grains/CWRS`, { headers: { 'x-api-key': api_key } });
  assert.equal(record.status, 200);
  assert.equal(record.headers.get('x-ratelimit-used'), '1');
  assert.equal((await record.json()).grain_id, 'CWRS');
  return api_key;
}

/** @param {{ child: import('node:child_process').ChildProcess, exited: Promise<unknown>, output: string[] }} server */
async function stop(server) {
  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 0, server.output.join(''));
  assert.match(server.output.join(''), /"event":"stopped"/);
}

function noDevDependencies(/** @type {string} */ dir) {
  const present = devDependencies.filter((name) => existsSync(join(dir, 'node_modules', name)));
  assert.deepEqual(present, [], `devDependencies installed in ${dir}`);
  assert.ok(!existsSync(join(dir, 'node_modules', '.bin', 'tsx')), 'no tsx');
}

async function productionDependenciesOnly() {
  const dir = join(work, 'clone');
  cleanCopy(dir);
  say('npm ci --omit=dev', `npm ci --omit=dev in ${dir}`);
  await run('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund'], dir);
  noDevDependencies(dir);
  notCompiledAgain(dir);
  say('npm ci --omit=dev', 'npm run build');
  const built = await run('npm', ['run', 'build'], dir);
  assert.match(built, /^bundled into /m);
  assert.match(built, /^published build \w+ in /m);
  say('npm ci --omit=dev', 'npm start, a keyed request, npm run backup, SIGTERM');
  const server = await serve('npm', ['start'], dir, { PORT: String(await freePort()) });
  const key = await keyedRequest(server.base);
  say('npm ci --omit=dev', 'npm run sync, grade and client:pack: the client package on production dependencies');
  const syncArgs = ['run', '-s', 'sync', '--', '--url', server.base, '--out', 'copy'];
  const synced = await run('npm', syncArgs, dir, { API_KEY: key });
  assert.match(synced, /^synced: 23 new, 0 changed, 0 unchanged, 0 removed; 1 request\(s\) counted/m);
  writeFileSync(join(dir, 'sample.json'), '{"values": {"ergot": 0.05}}');
  const graded = await run('npm', ['run', '-s', 'grade', '--', 'CWRS', 'sample.json', '--copy', 'copy'], dir);
  assert.match(graded, /"result":/);
  const tarball = (await run('npm', ['run', '-s', 'client:pack'], dir)).trim().split('\n').at(-1) ?? '';
  assert.match(tarball, /grain-tables-client-\d+\.\d+\.\d+\.tgz$/);
  assert.ok(existsSync(tarball), tarball);
  assert.match(await run('npm', ['run', '-s', 'backup', '--', 'copy.sqlite'], dir), /backed up 1 accounts and 1 keys/);
  assert.match(await run('npm', ['run', '-s', 'backup', '--', 'copy.sqlite'], dir, {}, 1), /copy.sqlite exists/);
  await stop(server);
  // nothing published and nothing to build from: a sentence, not a stack
  const env = { SITE_DIR: join(dir, 'no-site'), DATASET_DIR: join(dir, 'no-dataset'), PORT: '0' };
  const refused = (await run('node', ['scripts/start.mjs'], dir, env, 1)).trim();
  assert.match(refused, /^start-up refused: no build is published in .* and there is no dataset in .*\.$/);
  assert.doesNotMatch(refused, /\n|\bat /);
}

/** docs/deploy/Containerfile's instructions, continuation lines joined, comments dropped. */
function instructions(/** @type {string} */ file) {
  return readFileSync(file, 'utf8')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const [, op, rest] = /** @type {RegExpExecArray} */ (/^(\S+)\s+(.*)$/.exec(line));
      return { op: op.toUpperCase(), rest };
    });
}

async function containerfileReplay() {
  const context = join(work, 'context');
  const ignore = readFileSync(join(root, '.dockerignore'), 'utf8').split('\n').filter(Boolean);
  cleanCopy(context, ignore);
  // The image's user: `node` in the base image, `nobody` here
  const shim = join(work, 'shim');
  mkdirSync(shim);
  writeFileSync(
    join(shim, 'chown'),
    '#!/bin/sh\n[ "$1" = node:node ] || { echo "chown: the image has user node only, not $1" >&2; exit 1; }\n' +
      'shift; exec /bin/chown nobody:nogroup "$@"\n',
    { mode: 0o755 },
  );
  /** @type {Map<string, string>} stage name → its folder */
  const stages = new Map();
  let stage = { dir: '', workdir: '', env: /** @type {Record<string, string>} */ ({}), user: 'root' };
  const inStage = (/** @type {string} */ dir, /** @type {string} */ p) =>
    p.startsWith('/') ? join(dir, p) : join(stage.workdir, p);
  let volume = '';
  let healthcheck = /** @type {string[]} */ ([]);
  let cmd = /** @type {string[]} */ ([]);
  for (const { op, rest } of instructions(join(root, 'docs/deploy/Containerfile'))) {
    if (op === 'FROM') {
      const name = /\bAS\s+(\S+)/i.exec(rest)?.[1] ?? `stage-${stages.size}`;
      const dir = join(work, name);
      mkdirSync(dir);
      chmodSync(dir, 0o755);
      stages.set(name, dir);
      stage = { dir, workdir: dir, env: {}, user: 'root' };
    } else if (op === 'WORKDIR') {
      stage.workdir = inStage(stage.dir, rest);
      mkdirSync(stage.workdir, { recursive: true });
    } else if (op === 'ENV') {
      for (const [, k, v] of rest.matchAll(/(\w+)=(\S+)/g)) stage.env[k] = v;
    } else if (op === 'COPY') {
      const words = rest.split(/\s+/);
      const from = words[0].startsWith('--from=') ? /** @type {string} */ (words.shift()).slice(7) : null;
      const dest = /** @type {string} */ (words.pop());
      const fromDir = from === null ? context : stages.get(from);
      assert.ok(fromDir, `COPY --from=${from}: no such stage`);
      const target = inStage(stage.dir, dest);
      for (const source of words) {
        const path = from === null ? join(context, source) : join(fromDir, source);
        const into = dest.endsWith('/') ? join(target, source === '.' ? '' : source.split('/').pop() ?? '') : target;
        mkdirSync(dirname(into), { recursive: true });
        cpSync(path, source === '.' ? target : into, { recursive: true });
      }
    } else if (op === 'RUN') {
      say('Containerfile', `RUN ${rest}`);
      await run('sh', ['-c', rest], stage.workdir, { ...stage.env, PATH: `${shim}:${process.env.PATH}` });
      if (/^npm ci\b/.test(rest)) notCompiledAgain(stage.workdir);
    } else if (op === 'USER') stage.user = rest;
    else if (op === 'VOLUME') volume = JSON.parse(rest)[0];
    else if (op === 'HEALTHCHECK') healthcheck = JSON.parse(rest.slice(rest.indexOf('CMD') + 3));
    else if (op === 'CMD') cmd = JSON.parse(rest);
    else assert.ok(op === 'EXPOSE', `the replay does not know ${op}: teach it, or keep the Containerfile to it`);
  }
  const image = stage;
  assert.equal(image.user, 'node', 'the runtime stage runs as the base image’s unprivileged user');
  // npm start's node options and launcher (package.json), with node itself as PID 1
  const npmStart = pkg.scripts.start.replace(/^exec node /, '').split(' ');
  assert.deepEqual(cmd, ['node', ...npmStart], 'node itself is PID 1, in exec form, with npm start’s options');
  noDevDependencies(image.workdir);
  for (const source of ['gateway', 'scripts/build.ts', 'dataset'])
    assert.ok(!existsSync(join(image.workdir, source)), `the runtime stage ships no ${source}`);
  say('Containerfile', 'the image’s CMD as nobody, a keyed request, the HEALTHCHECK, SIGTERM');
  const asNobody = ['--reuid=nobody', '--regid=nogroup', '--clear-groups'];
  const env = { ...image.env, PORT: String(await freePort()) };
  const server = await serve('setpriv', [...asNobody, ...cmd], image.workdir, env);
  await keyedRequest(server.base);
  assert.ok(existsSync(join(inStage(image.dir, volume), 'gateway.sqlite')), 'the store is on the VOLUME');
  await run('setpriv', [...asNobody, ...healthcheck], image.workdir, env);
  await stop(server);
}

const t0 = performance.now();
// independent folders and ports: side by side, each saying its steps with its own prefix
const failures = (await Promise.allSettled([productionDependenciesOnly(), containerfileReplay()])).flatMap((r) =>
  r.status === 'rejected' ? [r.reason] : [],
);
for (const failure of failures) console.error(failure);
if (failures.length) process.exit(1);
say('both', `all done in ${Math.round((performance.now() - t0) / 1000)} s`);
