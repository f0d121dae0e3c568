// The encodings kept across builds (build/emit/encoding-cache.ts): a warm build is the same bytes as
// a cold one and compresses nothing it kept; an entry cut short is not believed; keeping one
// build's entries removes the others and another encoder's folder, and nothing else in the folder.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { emitSite } from '../build/emit/emit.ts';
import { folderEncodings } from '../build/emit/encoding-cache.ts';
import { tempDir } from './helpers/dataset.ts';

const meta = { dataset_version: 'v1', grain_ids: ['A'], schema_version: '1.0' };
const record = (n: number) => JSON.stringify({ grain_id: 'A', rows: Array.from({ length: 200 }, (_, i) => i * n) });

/** Bodies by route, as emit takes them: each with the routes it answers. */
const keyed = (bodies: Map<string, string>) => [...bodies].map(([route, body]) => [[route], body] as const);

/** An emit with the cache in `root`, and how many encodings it had to make. */
async function emit(root: string, bodies: Map<string, string>) {
  const cache = folderEncodings(root);
  let made = 0;
  const counted = {
    get: (k: string) => cache.get(k),
    set(k: string, b: Buffer) {
      made++;
      cache.set(k, b);
    },
  };
  const site = await emitSite(keyed(bodies), { ...meta, encodings: counted });
  return { site, made, cache };
}

describe('encodings kept across builds', () => {
  it('a warm build is the cold build byte for byte, and compresses only what changed', async () => {
    const root = tempDir('encodings');
    const bodies = new Map([
      ['/api/grains/A', record(1)],
      ['/api/grains', record(2)],
    ]);
    const cold = await emit(root, bodies);
    assert.equal(cold.made, 4, 'br and gzip of two bodies');
    const warm = await emit(root, bodies);
    assert.equal(warm.made, 0);
    assert.equal(warm.site.manifest.build_id, cold.site.manifest.build_id);
    // the same files, in whatever order their encodings finished (emit.ts)
    assert.deepEqual([...warm.site.files].sort(), [...cold.site.files].sort());
    const edited = await emit(root, new Map([...bodies, ['/api/grains/A', record(3)]]));
    assert.equal(edited.made, 2, 'only the edited body');
    const none = await emitSite(keyed(new Map([...bodies, ['/api/grains/A', record(3)]])), meta);
    assert.equal(edited.site.manifest.build_id, none.manifest.build_id, 'the same as with no cache');
  });

  it('leaves the build as it is where the folder cannot be made', async () => {
    const root = join(tempDir('encodings'), 'a-file');
    writeFileSync(root, 'not a folder');
    const bodies = new Map([['/api/grains/A', record(1)]]);
    const site = await emit(root, bodies);
    assert.equal(site.made, 2);
    assert.equal(site.site.manifest.build_id, (await emitSite(keyed(bodies), meta)).manifest.build_id);
  });

  it("believes no entry cut short, and keeps one build's entries and nothing of another encoder", async () => {
    const root = tempDir('encodings');
    const bodies = new Map([['/api/grains/A', record(1)]]);
    const first = await emit(root, bodies);
    const [folder] = readdirSync(root);
    const entries = readdirSync(join(root, folder!));
    assert.equal(entries.length, 2);
    for (const e of entries) writeFileSync(join(root, folder!, e), ''); // a crash mid-write
    assert.equal((await emit(root, bodies)).made, 2);
    // a stale entry, another encoder's folder, and what is not the cache's
    writeFileSync(join(root, folder!, `${'0'.repeat(32)}.br.11`), 'stale');
    mkdirSync(join(root, 'enc-abcdefabcdefabcd'));
    mkdirSync(join(root, 'abcdefabcdefabcd')); // a build's id: not the cache's
    writeFileSync(join(root, folder!, 'notes.txt'), 'mine');
    const kept = await emit(root, bodies);
    kept.cache.keepOnlyUsed();
    assert.deepEqual(readdirSync(root).sort(), ['abcdefabcdefabcd', folder].sort());
    assert.deepEqual(readdirSync(join(root, folder!)).sort(), [...entries, 'notes.txt'].sort());
    assert.equal(existsSync(join(root, folder!, `${'0'.repeat(32)}.br.11`)), false);
    assert.equal(first.site.manifest.build_id, kept.site.manifest.build_id);
  });
});
