// The signed editions' names (docs/operations.md, "Signed editions"): where the TUF repository of a
// site lies, and how a data route's body is named as a TUF target. The build, the gateway and the
// client package read it; it imports nothing (site-format.ts re-exports it).
//
//   <site>/tuf/metadata/{N}.root.json, timestamp.json, {v}.snapshot.json, {v}.targets.json
//   target name: the API path after its prefix, a crop year's form in a folder of its year, `.json`:
//     /api/grains/CWRS                      grains/CWRS.json
//     /api/snapshot?crop_year=2025/26       2025-26/snapshot.json
//   served (consistent snapshots) as /tuf/targets/{dir}/{sha256}.{basename}

/** The site's folder of signed metadata, every version the gateway serves. */
export const TUF_METADATA_DIR = 'tuf/metadata';
const API_PREFIX = '/api/';
const YEAR_QUERY = '?crop_year=';
const YEAR_DIR = /^(\d{4})-(\d{2})\/(.+)$/;

/** A data route (its canonical key) → its target name. */
export function targetNameOf(route: string): string {
  if (!route.startsWith(API_PREFIX)) throw new Error(`${route} is not an API route`);
  const q = route.indexOf(YEAR_QUERY);
  const path = route.slice(API_PREFIX.length, q < 0 ? undefined : q);
  const year = q < 0 ? '' : `${route.slice(q + YEAR_QUERY.length).replace('/', '-')}/`;
  return `${year}${path}.json`;
}

/** A target name → the data route it equals byte for byte (targetNameOf's inverse). */
export function routeOfTargetName(name: string): string {
  const m = YEAR_DIR.exec(name);
  const path = (m ? m[3]! : name).replace(/\.json$/, '');
  return `${API_PREFIX}${path}${m ? `${YEAR_QUERY}${m[1]}/${m[2]}` : ''}`;
}

/** A target's file under the targets folder, as consistent snapshots name it: `dir/{sha256}.{basename}`. */
export function consistentTargetFile(name: string, sha256: string): string {
  const slash = name.lastIndexOf('/');
  return `${name.slice(0, slash + 1)}${sha256}.${name.slice(slash + 1)}`;
}
