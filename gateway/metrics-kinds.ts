// The two kinds of metric GET /metrics prints that are read at scrape time from what the gateway keeps:
// a histogram over plain arrays (prom-client's own costs too much per request: metrics.ts) and a
// counter whose totals are read when scraped.
import { Counter, type Registry } from 'prom-client';

/** One histogram series per label value, in plain arrays; prom-client reads it at scrape time. */
export class Series {
  readonly counts: Float64Array;
  sum = 0;
  constructor(readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length + 1);
  }
  observe(v: number) {
    let i = 0;
    while (i < this.bounds.length && v > this.bounds[i]!) i++;
    this.counts[i]!++;
    this.sum += v;
  }
}

/**
 * A histogram prom-client's registry can print: its `get()` answers the documented metric object
 * (bucket, sum and count values), built from the series at scrape time.
 */
export function registerHistogram(registry: Registry, name: string, help: string, series: () => [Labels, Series][]) {
  const metric = {
    name,
    help,
    type: 'histogram',
    aggregator: 'sum',
    get: async () => {
      const values: { metricName: string; labels: Labels; value: number }[] = [];
      for (const [labels, s] of series()) {
        let cumulative = 0;
        for (let i = 0; i < s.bounds.length; i++) {
          cumulative += s.counts[i]!;
          values.push({ metricName: `${name}_bucket`, labels: { ...labels, le: s.bounds[i]! }, value: cumulative });
        }
        cumulative += s.counts[s.bounds.length]!;
        values.push({ metricName: `${name}_bucket`, labels: { ...labels, le: '+Inf' }, value: cumulative });
        values.push({ metricName: `${name}_sum`, labels, value: s.sum });
        values.push({ metricName: `${name}_count`, labels, value: cumulative });
      }
      return { name, help, type: 'histogram', aggregator: 'sum', values };
    },
    reset: () => {},
  };
  registry.registerMetric(metric as unknown as Parameters<Registry['registerMetric']>[0]);
}
export type Labels = Record<string, string | number>;

/** A counter whose values are read at scrape time (`read`: each series' labels and total). */
export function counter(
  registry: Registry,
  name: string,
  help: string,
  labelNames: string[],
  read: () => [Labels, number][],
) {
  new Counter({
    name,
    help,
    labelNames,
    registers: [registry],
    collect() {
      this.reset();
      for (const [labels, n] of read()) this.inc(labels, n);
    },
  });
}
