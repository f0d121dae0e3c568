// npm run tuf -- <timestamp|root> [options]: the signed editions' keys at work outside a build
// (docs/operations.md, "Signed editions"). `timestamp` re-signs the timestamp (and the targets and
// snapshot where they lapse within 30 days) with the online keys of STATE_DIR: the deployment's
// timer runs it daily. `root` signs a new root version with the offline root key, to renew it or
// to rotate keys; the key files are read from the paths given, never copied anywhere.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readArgs, usageExit } from '../build/cli-args.ts';
import { DEFAULT_DIRS, TUF_METADATA_DIR } from '../build/site-format.ts';
import { type Role, type RoleKey, roleKeyOf, stateKeys } from '../build/tuf/keys.ts';
import { renewEdition, rotateRoot } from '../build/tuf/publish-edition.ts';

const spec = {
  command: 'npm run tuf --',
  usage: '<timestamp|root> [--site DIR] [--state DIR] [--root-key FILE] [--new-root-key FILE]',
  help: `
  timestamp  a new timestamp version, valid 7 days (run daily by the deployment's timer)
  root       a new root version, signed with --root-key (the current root's key, kept offline) and,
             when it changes, --new-root-key; it names the root key (the new one if given) and the
             targets, snapshot and timestamp keys in the state folder

  --site DIR           the published site (default: SITE_DIR, else ${DEFAULT_DIRS.site})
  --state DIR          the online keys, in tuf-keys/ (default: STATE_DIR, else ${DEFAULT_DIRS.state})
  --root-key FILE      the current root key (PEM), for root
  --new-root-key FILE  a new root key (PEM), for root: the rotation

Exit codes: 0 done, 1 refused (the reason is printed), 2 usage.`,
  options: {
    site: { type: 'string', default: process.env.SITE_DIR || DEFAULT_DIRS.site },
    state: { type: 'string', default: process.env.STATE_DIR || DEFAULT_DIRS.state },
    'root-key': { type: 'string' },
    'new-root-key': { type: 'string' },
  },
  positionals: true,
} as const;

const { values, positionals } = readArgs(spec);
const [command] = positionals;
if (positionals.length !== 1 || (command !== 'timestamp' && command !== 'root'))
  usageExit(spec, 'name one command: timestamp or root');
const siteDir = resolve(values.site);
const stateDir = resolve(values.state);
const keyFile = (file: string) => roleKeyOf(readFileSync(resolve(file), 'utf8'));

try {
  if (command === 'timestamp') {
    const { versions } = renewEdition({ siteDir, stateDir, now: Date.now() });
    console.log(`timestamp version ${versions.timestamp} signed, valid 7 days (targets version ${versions.targets})`);
  } else {
    if (!values['root-key']) usageExit(spec, 'root needs --root-key FILE');
    const current = keyFile(values['root-key']);
    const next = values['new-root-key'] ? keyFile(values['new-root-key']) : current;
    const { keys } = stateKeys(stateDir, false);
    const online = (role: Exclude<Role, 'root'>): RoleKey => {
      const key = keys[role];
      if (!key) throw new Error(`${stateDir}/tuf-keys/${role}.pem is missing: the new root names it`);
      return key;
    };
    const roleKeys = {
      root: next,
      targets: online('targets'),
      snapshot: online('snapshot'),
      timestamp: online('timestamp'),
    };
    const version = rotateRoot({ siteDir, now: Date.now() }, roleKeys, next === current ? [current] : [current, next]);
    // a new timestamp version, so that gateways read the folder again and serve the new root
    if (existsSync(join(siteDir, TUF_METADATA_DIR, 'timestamp.json')))
      renewEdition({ siteDir, stateDir, now: Date.now() });
    console.log(`${version}.root.json signed; give it to the clients that pin a root (docs/sync.md)`);
  }
} catch (err) {
  console.error((err as Error).message);
  process.exit(1);
}
