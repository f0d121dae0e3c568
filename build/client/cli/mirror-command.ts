// grain-tables mirror --url <base> --out <dir> [--key <key>] [--root FILE] (docs/sync.md, "Mirrors"):
// the service's signed edition as a /tuf tree any static server can serve, verified before it is
// written; `grain-tables sync --from` verifies it again wherever it is read.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { readArgs, usageExit } from '../../cli-args.ts';
import { ApiError } from '../api.ts';
import { EditionError } from '../edition.ts';
import { writeMirror } from '../mirror.ts';
import { SYNC_FILES, snapshotFiles } from '../sync.ts';

const SPEC = {
  usage: '--url <base URL> --out <folder> [--key <API key>] [--root FILE]',
  help: `
Writes the service's signed edition into <folder>/tuf/ as a static tree: the TUF metadata, and
every target (each record, the list, each snapshot, current and of each crop year) under its
signed name. One counted request per snapshot; every body is checked against its signed hash
before anything is written, and the folder is replaced whole. Serve <folder> with any static
server; copies sync from it with grain-tables sync --from <folder or its URL> --root <root file>.

  --url URL    the service's base URL, without /api
  --out DIR    where the tree is written
  --key KEY    the API key; or set API_KEY in the environment
  --root FILE  the root to verify from (its JSON); without it, the service's first root

Exit codes: 0 written, 1 failed and nothing changed, 2 usage.`,
  options: { url: { type: 'string' }, key: { type: 'string' }, out: { type: 'string' }, root: { type: 'string' } },
} as const;

export async function mirrorCommand(argv: string[], opts: { command?: string; apiKey?: string | undefined } = {}) {
  const spec = { ...SPEC, command: opts.command ?? 'grain-tables mirror' };
  const { values } = readArgs(spec, argv);
  const key = values.key ?? opts.apiKey;
  if (!values.url || !URL.canParse(values.url)) usageExit(spec, '--url is the base URL of the service');
  if (!values.out) usageExit(spec, '--out is missing: the folder the tree is written into');
  if (!key) usageExit(spec, 'no API key: pass --key, or set API_KEY (POST /api/register issues one)');
  try {
    const m = await writeMirror(
      {
        baseUrl: values.url,
        key,
        out: resolve(values.out),
        trustedRoot: values.root === undefined ? undefined : readFileSync(resolve(values.root), 'utf8'),
        log: (line) => console.error(line),
      },
      (s) => snapshotFiles(s).get(SYNC_FILES.list)!,
    );
    console.log(
      `mirrored edition ${m.targetsVersion}: ${m.targets} targets in ${resolve(values.out)}/tuf; ` +
        `${m.counted} request(s) counted`,
    );
    return 0;
  } catch (err) {
    if (err instanceof EditionError || err instanceof ApiError) {
      console.error(`mirror failed, nothing was written: ${err.message}`);
      return 1;
    }
    throw err;
  }
}
