// GET /health: 200 with status "ok" only when all is well; otherwise a status naming what is wrong
// (the store, a refused build, an unreadable SITE_DIR) and `reason`, a sentence for the operator.
// It always names the build served and any newer build refused (docs/contract.md, Storage and scale;
// docs/operations.md "When something goes wrong"). The body is rebuilt only when something it says changed.

import { SCHEMA_VERSION } from '../build/site-format.ts';
import type { Mailer } from './mail.ts';
import { type GatewayResponse, jsonResponse } from './responses.ts';
import type { SiteHolder } from './site-watch.ts';
import type { StoreStatus } from './store/store-status.ts';
import { type TufHolder, tufLapsing } from './tuf-metadata.ts';

type HealthStatus =
  | 'ok'
  | 'store_unavailable'
  | 'store_data_lost'
  | 'store_degraded'
  | 'build_refused'
  | 'site_unreadable'
  | 'mail_degraded'
  | 'tuf_timestamp_lapsing';

export function createHealth(
  site: SiteHolder,
  store: StoreStatus,
  mail: Mailer['status'],
  tuf: TufHolder | null = null,
  clock: () => number = Date.now,
) {
  let key = '';
  let body: Buffer = Buffer.alloc(0);

  function build(lapsing: boolean): Buffer {
    const served = site.current;
    const problems: [HealthStatus, string][] = [];
    if (store.state === 'unavailable')
      problems.push(['store_unavailable', store.reason ?? 'The store is unavailable.']);
    if (store.state === 'lost') problems.push(['store_data_lost', store.reason ?? 'The store lost its data.']);
    if (store.state === 'degraded') problems.push(['store_degraded', store.reason ?? 'The store cannot write.']);
    const refused = site.refused;
    if (refused)
      problems.push([
        'build_refused',
        `The newer build ${refused.buildId} was refused (${refused.reason}); build ${served.buildId} is served ` +
          'until a good build is published.',
      ]);
    if (site.unreadable !== null)
      problems.push([
        'site_unreadable',
        `The pointer to the published build cannot be read (${site.unreadable}); build ${served.buildId} is ` +
          'served, and no newer build can be seen until it can.',
      ]);
    if (mail.degraded)
      problems.push(['mail_degraded', `${mail.reason ?? 'Mail cannot be sent.'} Recovery mails are retried.`]);
    if (lapsing)
      problems.push([
        'tuf_timestamp_lapsing',
        `The signed timestamp lapses at ${new Date(tuf!.timestampExpires!).toISOString()}: re-sign it ` +
          '(npm run tuf -- timestamp), and check the timer that should (docs/operations.md, "Signed editions").',
      ]);
    const fields = {
      status: problems[0]?.[0] ?? 'ok',
      reason: problems.length ? problems.map(([, why]) => why).join(' ') : null,
      store: store.state,
      store_primary: store.primary,
      store_warning: store.warning,
      mail: mail.degraded ? 'degraded' : 'ok',
      dataset_version: served.datasetVersion,
      build_id: served.buildId,
      refused_build: refused ? { build_id: refused.buildId, reason: refused.reason } : null,
      schema_version: SCHEMA_VERSION,
    };
    return Buffer.from(JSON.stringify(fields));
  }

  return function health(head: boolean): GatewayResponse {
    const lapsing = tufLapsing(tuf, clock());
    const now = `${site.current.buildId}:${site.version}:${store.version}:${mail.version}:${tuf?.version}:${lapsing}`;
    if (now !== key) {
      body = build(lapsing);
      key = now;
    }
    return jsonResponse(200, body, { head });
  };
}
