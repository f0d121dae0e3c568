// tier: full (npm run check-authority as a child process)
// `npm run check-authority` when the authority cannot be reached (docs/dataset-editing.md, step 3):
// why a fetch failed is named (the name not resolved, the connection refused, no answer in time),
// once for the host, with the option that checks saved pages instead, and the host's other pages
// are not asked for. The causes from real failures where one can be made here (a refused port, a
// server that never answers), from their codes for the others.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { networkCause } from '../build/import/network-cause.ts';
import { tempDir } from './helpers/dataset.ts';
import { root } from './helpers/gateway.ts';

const failed = (code: string) => new TypeError('fetch failed', { cause: Object.assign(new Error(code), { code }) });

/** A port nothing listens on: one the system gave a server, which is closed again. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

describe('why a page could not be fetched', () => {
  const cases: [string, unknown, RegExp | null][] = [
    ['a name not resolved', failed('ENOTFOUND'), /^the name h cannot be resolved \(DNS: ENOTFOUND\)$/],
    ['no DNS server', failed('EAI_AGAIN'), /^the name h cannot be resolved \(DNS: EAI_AGAIN\)$/],
    ['a refusal', failed('ECONNREFUSED'), /^h refused the connection/],
    ['a connect timeout', failed('UND_ERR_CONNECT_TIMEOUT'), /^h did not answer in time \(timeout/],
    ['no route', failed('ENETUNREACH'), /^h cannot be reached from this machine/],
    ['a reset', failed('ECONNRESET'), /^the connection to h failed \(ECONNRESET\)$/],
    ['our own timeout', new DOMException('The operation was aborted due to timeout', 'TimeoutError'), /within 30 s/],
    ['an HTTP status (not the network)', new Error('https://h/x answered 404'), null],
    ['not an error at all', 'x', null],
  ];
  for (const [name, err, expected] of cases) {
    it(name, () => {
      const cause = networkCause(err, 'h', 30);
      if (expected === null) assert.equal(cause, null);
      else assert.match(cause ?? '', expected);
    });
  }

  it('names a real refusal and a real silence', async () => {
    const port = await closedPort();
    const refused = await fetch(`http://127.0.0.1:${port}/`).catch((e: unknown) => e);
    assert.match(networkCause(refused, 'here', 1) ?? '', /^here refused the connection \(ECONNREFUSED\)$/);
    const silent: Server = createServer(() => {}); // takes the request, never answers
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const { port: quiet } = silent.address() as AddressInfo;
    const timeout = await fetch(`http://127.0.0.1:${quiet}/`, { signal: AbortSignal.timeout(200) }).catch((e) => e);
    silent.closeAllConnections();
    silent.close();
    assert.equal(networkCause(timeout, 'here', 1), 'here did not answer within 1 s (timeout)');
  });
});

describe('npm run check-authority with the authority out of reach', () => {
  let dataset: string;
  let port: number;
  before(async () => {
    port = await closedPort();
    dataset = join(tempDir('offline'), 'dataset');
    cpSync(join(root, 'dataset'), dataset, { recursive: true });
    for (const file of readdirSync(join(dataset, 'grains'))) {
      const path = join(dataset, 'grains', file);
      const text = readFileSync(path, 'utf8');
      writeFileSync(path, text.replace(/source_url: https:\/\/[^/\s]+/, `source_url: https://127.0.0.1:${port}`));
    }
  });

  it('names the cause once, and the option that checks saved pages', () => {
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', join(root, 'scripts/check-authority.ts'), '--dataset', dataset],
      { encoding: 'utf8', cwd: root },
    );
    assert.equal(run.status, 1);
    const lines = run.stderr.trim().split('\n');
    assert.equal(lines.length, 2, run.stderr);
    assert.match(lines[0]!, new RegExp(`^CWRS: not fetched: 127\\.0\\.0\\.1:${port} refused the connection`));
    assert.match(lines[1]!, /^22 other page\(s\) of 127\.0\.0\.1:\d+ were not asked for\. No network\? .*--pages DIR/);
    assert.match(run.stdout, /^0 difference\(s\), 23 page\(s\) not checked$/m);
  });
});
