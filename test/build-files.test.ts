// A build's files written into its folder (build/publish/build-files.ts): a plain body the live
// build has under the same name and length is linked, not written; an encoding is linked only from
// the entry that keeps it (its bytes depend on the compression asked); anything else is written.
// What is the live build's own file (the same inode) is durable: publishing need not flush it.
import assert from 'node:assert/strict';
import { linkSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
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
  // an entry the live build linked when it was made: the live build's gzip is that very file
  const keptByLive = join(tempDir('encodings'), 'entry');
  writeFileSync(keptByLive, 'kept gzip');
  linkSync(keptByLive, join(live, 'bodies', `${HASH}.json.gz`));

  type Case = { what: string; path: string; bytes: string; kept?: string; links: number; durable: boolean };
  const plain = `bodies/${HASH}.json`;
  const cases: Case[] = [
    { what: 'a plain body the live build has', path: plain, bytes: 'live plain', links: 2, durable: true },
    { what: 'of another length', path: plain, bytes: 'longer plain body', links: 1, durable: false },
    { what: 'an encoding of the same name', path: `${plain}.br`, bytes: 'live br', links: 1, durable: false },
    { what: 'an encoding kept', path: `${plain}.br`, bytes: 'kept br', kept, links: 2, durable: false },
    {
      what: "an encoding kept that is the live build's file",
      path: `${plain}.gz`,
      bytes: 'kept gzip',
      kept: keptByLive,
      links: 3,
      durable: true,
    },
    { what: 'the manifest', path: 'manifest.json', bytes: '{}', links: 1, durable: false },
  ];
  for (const c of cases) {
    it(`${c.links > 1 ? 'links' : 'writes'} ${c.what}${c.durable ? ', durable already' : ''}`, () => {
      const files = folderFiles(tempDir('staged'), live);
      files.set(c.path, Buffer.from(c.bytes), c.kept);
      const file = join(files.dir, c.path);
      assert.equal(readFileSync(file, 'utf8'), c.bytes);
      assert.equal(statSync(file).nlink, c.links);
      assert.deepEqual([files.count, files.bytes], [1, c.bytes.length]);
      assert.deepEqual([...files.durable], c.durable ? [c.path] : []);
    });
  }

  it('writes every file with no live build', () => {
    const files = folderFiles(tempDir('staged'), null);
    files.set(`bodies/${HASH}.json`, Buffer.from('live plain'));
    assert.equal(statSync(join(files.dir, 'bodies', `${HASH}.json`)).nlink, 1);
  });
});
