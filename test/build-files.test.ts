// A build's files written into its folder (build/publish/build-files.ts): a plain body the live
// build has under the same name and length is linked, not written; an encoding is linked only from
// the entry that keeps it (its bytes depend on the compression asked); anything else is written.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { folderFiles } from '../build/publish/build-files.ts';
import { tempDir } from './helpers/dataset.ts';

const HASH = 'a'.repeat(32);

describe('a build written into its folder', () => {
  const live = tempDir('live-build');
  mkdirSync(join(live, 'bodies'));
  writeFileSync(join(live, 'bodies', `${HASH}.json`), 'live plain');
  writeFileSync(join(live, 'bodies', `${HASH}.json.br`), 'live br');
  const kept = join(tempDir('encodings'), 'entry');
  writeFileSync(kept, 'kept br');

  const cases: { what: string; path: string; bytes: string; kept?: string; linked: boolean }[] = [
    { what: 'a plain body the live build has', path: `bodies/${HASH}.json`, bytes: 'live plain', linked: true },
    { what: 'of another length', path: `bodies/${HASH}.json`, bytes: 'longer plain body', linked: false },
    { what: 'an encoding of the same name', path: `bodies/${HASH}.json.br`, bytes: 'live br', linked: false },
    { what: 'an encoding kept', path: `bodies/${HASH}.json.br`, bytes: 'kept br', kept, linked: true },
    { what: 'the manifest', path: 'manifest.json', bytes: '{}', linked: false },
  ];
  for (const c of cases) {
    it(`${c.linked ? 'links' : 'writes'} ${c.what}`, () => {
      const files = folderFiles(tempDir('staged'), live);
      files.set(c.path, Buffer.from(c.bytes), c.kept);
      const file = join(files.dir, c.path);
      assert.equal(readFileSync(file, 'utf8'), c.bytes);
      assert.equal(statSync(file).nlink, c.linked ? 2 : 1);
      assert.deepEqual([files.count, files.bytes], [1, c.bytes.length]);
    });
  }

  it('writes every file with no live build', () => {
    const files = folderFiles(tempDir('staged'), null);
    files.set(`bodies/${HASH}.json`, Buffer.from('live plain'));
    assert.equal(statSync(join(files.dir, 'bodies', `${HASH}.json`)).nlink, 1);
  });
});
