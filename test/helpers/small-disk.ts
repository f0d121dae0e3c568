// A real, small file system for the full-disk tests: a tmpfs mounted on a temporary folder (root
// only), filled to the last byte and emptied again on demand. Where it cannot be mounted the tests
// skip, except in CI, which runs as root (.ci/run installs packages): there a refused mount fails.
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';

export interface SmallDisk {
  dir: string;
  /** Writes a filler file until the file system answers ENOSPC. */
  fill(): void;
  /** Removes the filler: the space is back. */
  free(): void;
}

const mounted: string[] = [];
after(() => {
  for (const dir of mounted.splice(0)) {
    spawnSync('umount', ['-l', dir]);
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A tmpfs of `size` (mount's syntax: 8m), or the reason it cannot be had here. */
export function mountSmallDisk(size: string): SmallDisk | string {
  const dir = mkdtempSync(join(tmpdir(), 'grain-disk-'));
  const run = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0755`, 'tmpfs', dir], { encoding: 'utf8' });
  if (run.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    const why = `cannot mount a tmpfs here (${(run.stderr || run.error?.message || '').trim()}): run as root`;
    if (process.env.CI) throw new Error(`CI: ${why}`);
    return why;
  }
  mounted.push(dir);
  const filler = join(dir, 'filler');
  return {
    dir,
    fill() {
      const fd = openSync(filler, 'a');
      try {
        // large pieces first, then smaller ones, down to the last byte
        for (const size of [1 << 20, 4096, 1]) {
          const chunk = Buffer.alloc(size, 1);
          try {
            for (;;) writeSync(fd, chunk);
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
          }
        }
      } finally {
        closeSync(fd);
      }
    },
    free: () => unlinkSync(filler),
  };
}
