// GET /metrics (docs/operations.md, Monitoring): without METRICS_TOKEN configured and sent as a
// bearer token, an unknown path; never counted against a key.
import { ERRORS } from './errors.ts';
import type { Reply } from './exchange.ts';
import type { Metrics } from './metrics.ts';
import { untaggedMatchFails } from './negotiate.ts';
import { errorResponse, type GatewayRequest, response } from './responses.ts';

export function createMetricsPage(metrics: Metrics | null) {
  return function metricsPage(req: GatewayRequest, head: boolean): Reply {
    if (!metrics?.allows(req.headers.authorization)) return errorResponse(ERRORS.notFound, head);
    if (req.method !== 'GET' && !head) return errorResponse(ERRORS.notAllowedGet);
    if (untaggedMatchFails(req.headers['if-match'], true)) return errorResponse(ERRORS.preconditionFailed, head);
    return metrics.render().then((text) => {
      const body = Buffer.from(text);
      const headers = [
        'Content-Type',
        metrics.contentType,
        'Content-Length',
        String(body.length),
        'Cache-Control',
        'no-store',
      ];
      return response(200, headers, head ? null : body);
    });
  };
}
