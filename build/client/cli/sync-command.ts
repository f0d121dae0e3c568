// grain-tables sync --url <base> --out <dir> [--key <key>] [--wait <seconds>] [--crop-year YYYY/YY]
// (npm run sync -- … in the service's repository) mirrors the tables into <dir> (../sync.ts says
// how): the key may come from API_KEY instead of --key, and is sent only in the X-API-Key header.
// Prints progress and a one-line summary. Exit codes: 0 done (or nothing changed), 1 failed and
// nothing changed, 2 usage.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { readArgs, usageExit } from '../../cli-args.ts';
import { ApiError, SyncError, syncMirror } from '../sync.ts';

const SPEC = {
  usage:
    '--url <base URL> --out <folder> [--key <API key>] [--wait <seconds>] [--crop-year YYYY/YY] [--root FILE] ' +
    '(or --from <mirror> for --url)',
  help: `
Keeps a copy of every table in <folder>: grains.json, grains/<GRAIN_ID>.json (each record exactly as
GET /api/grains/<GRAIN_ID> serves it), changelog.json and sync-state.json. One request does it:
GET /api/snapshot, asked with the ETag the copy holds, so a run with nothing changed is a free 304
and a run with anything changed costs one request. A run that fails leaves the copy as it was.

  --url URL       the service's base URL, http:// or https://, without /api
  --out FOLDER    where the copy is kept (made on the first run)
  --key KEY       the API key; or set API_KEY in the environment (safer: not in the shell's history)
  --wait SECONDS  wait out a 429 whose Retry-After is at most this long (default 60; 0: never)
  --crop-year Y   mirror the records as they stood in crop year Y (2025/26), of the classes published
                  for it, instead of the current ones: a year's copy is a folder of its own
  --root FILE     the signed editions' root to verify from (its JSON); without it, the root the copy
                  kept, else the service's first, trusted on first use. A body that is not the one
                  signed, an older edition, expired metadata or an unknown signer fail the run
  --from MIRROR   sync from a mirror (grain-tables mirror): its folder, or the URL a static server
                  serves it at; no key, nothing counted, verified from --root or the copy's root

Exit codes: 0 done (or nothing changed), 1 failed and nothing changed, 2 usage.`,
  options: {
    url: { type: 'string' },
    key: { type: 'string' },
    out: { type: 'string' },
    wait: { type: 'string' },
    'crop-year': { type: 'string' },
    root: { type: 'string' },
    from: { type: 'string' },
  },
} as const;

/**
 * The command on its arguments: its exit code. A usage error or --help exits the process (args.ts).
 * `command` is how the user typed it; `apiKey` the API_KEY of the environment.
 */
export async function syncCommand(
  argv: string[],
  opts: { command?: string; apiKey?: string | undefined } = {},
): Promise<number> {
  const spec = { ...SPEC, command: opts.command ?? 'grain-tables sync' };
  const { values } = readArgs(spec, argv);
  const key = values.key ?? opts.apiKey;
  const from = values.from && (/^https?:\/\//.test(values.from) ? values.from : resolve(values.from));
  if (!values.url && !from)
    usageExit(spec, '--url is missing: the base URL of the service, e.g. https://grain.example.net');
  if (values.url === undefined) values.url = '';
  else if (!URL.canParse(values.url) || !/^https?:$/.test(new URL(values.url).protocol)) {
    usageExit(spec, `--url must be an http:// or https:// URL, not "${values.url}"`);
  }
  // the API's paths all begin with /api: a base URL that ends with it would ask for /api/api/…
  const apiPath = values.url && /^(.*?)\/api\/?$/.exec(new URL(values.url).pathname);
  if (apiPath) {
    const base = new URL(values.url);
    base.pathname = apiPath[1] || '/';
    usageExit(spec, `--url is the service's base URL, without /api: --url ${base.href.replace(/\/$/, '')}`);
  }
  if (!values.out) usageExit(spec, '--out is missing: the folder that holds the copy');
  if (!key && !from) usageExit(spec, 'no API key: pass --key, or set API_KEY (POST /api/register issues one)');
  const wait = values.wait === undefined ? 60 : Number(values.wait);
  if (!/^\d+$/.test(values.wait ?? '60'))
    usageExit(spec, `--wait must be a whole number of seconds, not "${values.wait}"`);
  const cropYear = values['crop-year'];
  if (cropYear !== undefined && !/^\d{4}\/\d{2}$/.test(cropYear))
    usageExit(spec, `--crop-year must be a crop year written like 2025/26, not "${cropYear}"`);
  const out = resolve(values.out);
  const first = !existsSync(out);
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  try {
    const s = await syncMirror({
      baseUrl: values.url,
      key: key ?? '',
      from,
      out,
      cropYear,
      maxWaitSeconds: wait,
      signal: controller.signal,
      log: (line) => console.error(line),
      trustedRoot: values.root === undefined ? undefined : readFileSync(resolve(values.root), 'utf8'),
    });
    const r = s.records;
    const left = s.remaining === null ? '' : ` (${s.remaining} left this hour)`;
    const silent = s.unannounced.length ? `; ${s.unannounced.length} changed with no changelog entry naming them` : '';
    console.log(
      s.changed
        ? `synced: ${r.new} new, ${r.changed} changed, ${r.unchanged} unchanged, ${r.removed} removed${silent}; ` +
            `${s.counted} request(s) counted against the quota${left}`
        : `unchanged since the last sync: ${r.unchanged} records; ${s.counted} request(s) counted${left}`,
    );
    return 0;
  } catch (err) {
    if (err instanceof SyncError || err instanceof ApiError) {
      const kept = first ? 'nothing was written' : 'the previous mirror is as it was';
      console.error(`sync failed, ${kept}: ${err.message}`);
      return 1;
    }
    throw err;
  }
}
