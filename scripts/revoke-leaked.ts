// npm run accounts -- revoke-leaked: an operator sent a leaked key revokes it by its value
// (docs/operations.md, Accounts CLI, "A leaked key"). The key comes on standard input, never as an argument (it
// would stay in the shell's history and show in ps); what is printed names the account and the
// key's id, never the key. The store's revocation is the one DELETE /api/keys/current makes, so
// running gateways refuse the key as they do any revoked key (docs/operations.md, Accounts CLI).
import { KEY_PREFIX } from '../build/site-format.ts';
import { hashKey, isWellFormedKey, KEY_LENGTH } from '../gateway/keys.ts';
import type { AccountQueries } from '../gateway/store/types.ts';

/** What a refusal to take the key as an argument says (the argument itself is never repeated). */
export const KEY_NOT_AN_ARGUMENT =
  'revoke-leaked takes no argument: pipe the key to it on standard input ' +
  '(an argument stays in the shell history and shows in ps)';

/** Standard input, whole: the key and perhaps a line break. */
export async function readStandardInput(): Promise<string> {
  if (process.stdin.isTTY) console.error('Paste the key, then press Enter and Ctrl-D:');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Revokes the key in `input`; says what happened without the key, and gives the exit status. */
export async function revokeLeaked(q: AccountQueries, input: string, now: number): Promise<number> {
  const key = input.trim();
  if (!isWellFormedKey(key)) {
    console.error(
      `standard input holds no key: a key is ${KEY_LENGTH} characters, ${KEY_PREFIX} and ` +
        `${KEY_LENGTH - KEY_PREFIX.length} more whose last six are ` +
        'its checksum (a scanner may have found a look-alike, or the key was cut when it was copied)',
    );
    return 1;
  }
  const found = await q.revokeByDigest(hashKey(key), now);
  if (found === null) {
    console.error("no account holds this key: it was never issued here (is REDIS_URL or STATE_DIR the gateway's?)");
    return 1;
  }
  const which = `key ${found.keyId} of ${found.email}`;
  if (!found.revokedNow) {
    console.error(`${which} was already revoked on ${new Date(found.revokedAt).toISOString()}: nothing to do`);
    return 1;
  }
  console.log(`revoked ${which}`);
  return 0;
}
