// npm run sync -- --url <base> --key <key> --out <dir> [--wait <seconds>]
// Mirrors the tables into <dir> (build/client/sync.ts says how): the key may come from API_KEY
// instead of --key, and is sent only in the X-API-Key header. Prints progress and a one-line
// summary. Exit codes: 0 done (or nothing changed), 1 failed and nothing changed, 2 usage.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ApiError, SyncError, syncMirror } from '../build/client/sync.ts';

const USAGE =
  'usage: npm run sync -- --url <base URL> --key <API key> --out <folder> [--wait <seconds>] (or API_KEY=…)';

async function main(): Promise<number> {
  let values: { url?: string; key?: string; out?: string; wait?: string };
  try {
    ({ values } = parseArgs({
      options: { url: { type: 'string' }, key: { type: 'string' }, out: { type: 'string' }, wait: { type: 'string' } },
    }));
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  const key = values.key ?? process.env.API_KEY;
  const wait = values.wait === undefined ? 60 : Number(values.wait);
  if (!values.url || !key || !values.out || !Number.isInteger(wait) || wait < 0 || !/^https?:\/\//.test(values.url)) {
    console.error(USAGE);
    return 2;
  }
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  try {
    const s = await syncMirror({
      baseUrl: values.url,
      key,
      out: resolve(values.out),
      maxWaitSeconds: wait,
      signal: controller.signal,
      log: (line) => console.error(line),
    });
    const r = s.records;
    const left = s.remaining === null ? '' : ` (${s.remaining} left this hour)`;
    console.log(
      s.changed
        ? `synced: ${r.new} new, ${r.changed} changed, ${r.unchanged} unchanged, ${r.removed} removed; ` +
            `${s.counted} request(s) counted against the quota${left}`
        : `unchanged since the last sync: ${r.unchanged} records; ${s.counted} request(s) counted${left}`,
    );
    return 0;
  } catch (err) {
    if (err instanceof SyncError || err instanceof ApiError) {
      console.error(`sync failed, the previous mirror is as it was: ${err.message}`);
      return 1;
    }
    throw err;
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`sync: ${(err as Error).message}`);
    process.exit(1);
  },
);
