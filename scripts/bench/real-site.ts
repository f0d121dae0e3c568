// The site every bench serves: the real dataset, built and published in this run's work folder.
import { join } from 'node:path';
import { buildSite } from '../../build/build-site.ts';
import { publishSite } from '../../build/publish/publish.ts';
import { type Bench, root } from './context.ts';

/** Builds and publishes the real dataset; its folder is the gateway's SITE_DIR. */
export async function publishRealSite(b: Bench): Promise<string> {
  const built = await buildSite(join(root, 'dataset'));
  if (!built.ok) throw new Error('the dataset does not build');
  const siteDir = join(b.work, 'site');
  publishSite(siteDir, built.site);
  return siteDir;
}
