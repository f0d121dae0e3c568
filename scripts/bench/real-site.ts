// The site every bench serves: the real dataset, built and published in this run's work folder.
import { join } from 'node:path';
import { buildSite } from '../../build/build-site.ts';
import { publishSite } from '../../build/publish.ts';
import { HAS_TASKSET, HAS_WRK, root, work } from './context.ts';

/** Builds and publishes the real dataset; its folder is the gateway's SITE_DIR. */
export function publishRealSite(): string {
  const built = buildSite(join(root, 'dataset'));
  if (!built.ok) throw new Error('the dataset does not build');
  const siteDir = join(work, 'site');
  publishSite(siteDir, built.site);
  return siteDir;
}

/** A bench that loads servers at once needs wrk, and a core for it beside the servers' one. */
export function requireWrkAndTwoCores() {
  if (!HAS_WRK || !HAS_TASKSET) throw new Error('needs wrk and two CPUs (apt-get install wrk)');
}
