// HTTP request counts and latencies for /metrics, counted in plain numbers on the request path and handed to
// prom-client only when Prometheus scrapes. prom-client's inc() and observe() hash and check their label object on
// every call, which cost a light listing request about a sixth of its throughput (measured, bench/listing and an A/B
// of the hook); here a request costs one Map lookup and a bucket search.
import { Counter, Histogram, type Registry } from 'prom-client';

interface RouteTally {
  labels: { method: string; route: string };
  /** Requests per bucket (not cumulative), the last one above every bound. */
  perBucket: number[];
  sum: number;
  count: number;
}

/** The latency histogram, exported from the tallies (the same lines prom-client writes for its own histograms). */
class TalliedHistogram extends Histogram<'method' | 'route'> {
  constructor(
    private readonly tallies: Map<string, RouteTally>,
    private readonly bounds: readonly number[],
    private readonly options: { name: string; help: string; registers: Registry[] },
  ) {
    super({ ...options, labelNames: ['method', 'route'], buckets: [...bounds] });
  }

  /** What the registry writes (prom-client asks this before get()). */
  async getForPromString() {
    const { name, help } = this.options;
    const values: { labels: Record<string, string | number>; value: number; metricName: string; sharedLabels: Record<string, string> }[] =
      [];
    for (const t of this.tallies.values()) {
      let acc = 0;
      this.bounds.forEach((le, i) => {
        acc += t.perBucket[i]!;
        values.push({ labels: { le }, value: acc, metricName: `${name}_bucket`, sharedLabels: t.labels });
      });
      values.push({ labels: { le: '+Inf' }, value: t.count, metricName: `${name}_bucket`, sharedLabels: t.labels });
      values.push({ labels: {}, value: t.sum, metricName: `${name}_sum`, sharedLabels: t.labels });
      values.push({ labels: {}, value: t.count, metricName: `${name}_count`, sharedLabels: t.labels });
    }
    return { name, help, type: 'histogram' as const, values, aggregator: 'sum' as const };
  }
}

export interface RequestMetrics {
  record(method: string, route: string, status: number, seconds: number): void;
}

/** Registers http_requests_total {method, route, status} and http_request_duration_seconds {method, route}. */
export function requestMetrics(registry: Registry, bounds: readonly number[]): RequestMetrics {
  const byStatus = new Map<string, { labels: { method: string; route: string; status: string }; count: number }>();
  const byRoute = new Map<string, RouteTally>();
  new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by route template.',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
    collect() {
      this.reset();
      for (const t of byStatus.values()) this.inc(t.labels, t.count);
    },
  });
  new TalliedHistogram(byRoute, bounds, {
    name: 'http_request_duration_seconds',
    help: 'Time from the request reaching the app to the answer being sent, by route template.',
    registers: [registry],
  });
  return {
    record(method, route, status, seconds) {
      const routeKey = `${method} ${route}`;
      const statusKey = `${routeKey} ${status}`;
      let s = byStatus.get(statusKey);
      if (!s) byStatus.set(statusKey, (s = { labels: { method, route, status: String(status) }, count: 0 }));
      s.count++;
      let r = byRoute.get(routeKey);
      if (!r)
        byRoute.set(
          routeKey,
          (r = { labels: { method, route }, perBucket: new Array<number>(bounds.length + 1).fill(0), sum: 0, count: 0 }),
        );
      let i = 0;
      while (i < bounds.length && seconds > bounds[i]!) i++;
      r.perBucket[i]!++;
      r.sum += seconds;
      r.count++;
    },
  };
}
