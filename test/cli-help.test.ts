// tier: full (every npm script that takes arguments, run as a child process)
// Every command a person runs with arguments answers `--help` with its usage, exit 0, and a
// made-up option with a sentence naming it and the usage line, exit 2: never a stack trace (every
// CLI reads its arguments with build/cli-args.ts). The scripts are package.json's own, so a
// script added later is held to the same, unless it is named below as taking no arguments.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { before, describe, it } from 'node:test';
import { bundled } from './helpers/bundles.ts';
import { root } from './helpers/gateway.ts';

/** The scripts that take no arguments of their own (or hand them to another tool), and why. */
const NO_ARGUMENTS: Record<string, string> = {
  start: 'serves; configured by environment variables (docs/operations.md)',
  dev: 'serves, restarting on a change',
  typecheck: 'tsc',
  test: 'node --test; its arguments are test files',
  'test:quick': 'node --test; its arguments are test files',
  fuzz: 'node --test, configured by FUZZ_RUNS',
  lint: 'the linters, on the whole tree',
  format: 'biome, on the whole tree',
  'lint:openapi': 'the OpenAPI linters, on the built document',
};

const commands = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
  .scripts;
const scripts = Object.keys(commands).filter((name) => !(name in NO_ARGUMENTS));

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `npm run <script> -- <args>` as npm runs it: the script's command in sh with the arguments after
 * it and npm_lifecycle_event naming the script, without npm's own start-up around each of the runs.
 */
function run(script: string, args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', `${commands[script]} "$@"`, 'sh', ...args], {
      cwd: root,
      env: {
        ...process.env,
        ...env,
        npm_lifecycle_event: script,
        PATH: `${join(root, 'node_modules/.bin')}:${process.env.PATH}`,
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin.end();
  });
}

/** A line of a stack trace, as node prints an error it was not told how to say. */
const STACK = /^\s+at .+\(?.*:\d+:\d+\)?$/m;

describe('every command that takes arguments', () => {
  const runs = new Map<string, Run>();
  before(async () => {
    // the bundled commands (scripts/run.mjs) run the tests' bundles, made fresh once here
    const env = { DIST_DIR: dirname((await bundled('sync'))[1]!) };
    const asked = scripts.flatMap((s) => [`${s} --help`, `${s} --made-up-option`]);
    // three at a time: each is a process start, most of it waiting on the disk and the loader
    const next = async (): Promise<void> => {
      const one = asked.shift();
      if (!one) return;
      const [script, option] = one.split(' ') as [string, string];
      runs.set(one, await run(script, [option], env));
      return next();
    };
    await Promise.all([next(), next(), next()]);
  });

  it('is found in package.json', () => {
    assert.ok(scripts.length >= 15, scripts.join(', '));
    for (const name of ['bench:compare', 'check-authority', 'sync', 'grade', 'build'])
      assert.ok(scripts.includes(name));
  });

  for (const script of scripts) {
    it(`npm run ${script} -- --help prints its usage and exits 0`, () => {
      const r = runs.get(`${script} --help`)!;
      assert.equal(r.status, 0, r.stderr);
      assert.ok(r.stdout.startsWith(`usage: npm run ${script}`), r.stdout);
      assert.ok(r.stdout.split('\n').length > 3, 'more than the usage line: what it does');
      assert.doesNotMatch(r.stdout + r.stderr, STACK);
    });

    it(`npm run ${script} -- --made-up-option says so in a sentence and exits 2`, () => {
      const r = runs.get(`${script} --made-up-option`)!;
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, /^Unknown option '--made-up-option'\.\nusage: npm run /m);
      assert.doesNotMatch(r.stdout + r.stderr, STACK);
      assert.doesNotMatch(r.stderr, /ERR_PARSE_ARGS/);
    });
  }
});
