// The code of a git ref as a checkout the bench can run (bench:compare's "before"): the ref's files
// exported with `git archive` into the run's work folder (no git worktree to prune afterwards; the
// folder goes with the work folder), this checkout's node_modules linked in, its own bundle made,
// and the real dataset built by its own build into a site of its own, as `npm run build` would.
// The packages are today's: where the ref's package-lock.json differs, the report says so.
import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { type Bench, root } from './context.ts';
import { bundleForBench, type Checkout } from './servers.ts';

export interface RefCheckout extends Checkout {
  /** The ref as given, and the commit it names (abbreviated). */
  ref: string;
  commit: string;
  /** The published build of the ref's dataset, made by the ref's build: its gateway's SITE_DIR. */
  siteDir: string;
  /** Whether the ref's package-lock.json is this checkout's (else it runs on other packages than it locks). */
  sameLock: boolean;
}

const git = (...args: string[]) => spawnSync('git', args, { cwd: root, encoding: 'utf8' });

export function checkoutRef(b: Bench, ref: string): RefCheckout {
  const commit = git('rev-parse', '--verify', '--short', `${ref}^{commit}`).stdout.trim();
  if (!commit) throw new Error(`${ref} names no commit in this repository`);
  const dir = join(b.work, `ref-${commit}`);
  mkdirSync(dir, { recursive: true });
  const exported = spawnSync('sh', ['-c', 'git archive --format=tar "$1" | tar -x -C "$2"', 'sh', commit, dir], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (exported.status !== 0) throw new Error(`git archive ${commit} failed`);
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const checkout = { dir, bundleDir: join(dir, 'dist', 'bench') };
  bundleForBench(checkout);
  const siteDir = join(b.work, `site-${commit}`);
  const args = [join(checkout.bundleDir, 'build.js'), '--dataset', join(dir, 'dataset'), '--out', siteDir];
  const built = spawnSync(process.execPath, args, { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
  if (built.status !== 0) throw new Error(`the dataset of ${commit} does not build with its own build`);
  const sameLock = git('diff', '--quiet', commit, '--', 'package-lock.json').status === 0;
  return { ...checkout, ref, commit, siteDir, sameLock };
}
