// A body of a published build as its plain bytes, for the commands that read a build from its folder (the
// changelog's guard, grade): its own file, or its gzip form unzipped where only that is stored (emit/emit.ts).
import { gunzipSync } from 'node:zlib';
import type { Build } from './site-format.ts';

/** A route's plain body in a build, through `read` (a path under the site → its bytes); null when it has none. */
export function plainBody({ pointer, manifest }: Build, route: string, read: (path: string) => Buffer): Buffer | null {
  const entry = manifest.bodies[manifest.routes[route] ?? ''];
  if (!entry) return null;
  if (entry.identity.file !== undefined) return read(`${pointer.dir}/${entry.identity.file}`);
  return gunzipSync(read(`${pointer.dir}/${entry.gzip!.file}`));
}
