// The process as Prometheus' client libraries name it: CPU time, resident memory, heap, open files,
// start time, and the event loop's delay (how long a ready callback waits: the lag every request
// sees on top of its own work).
// https://prometheus.io/docs/instrumenting/writing_clientlibs/#process-metrics
import { readdirSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { MetricsRegistry } from './registry.js';

export function registerProcessMetrics(m: MetricsRegistry): { stop(): void } {
  const startSeconds = Math.round(Date.now() / 1000 - process.uptime());
  const lag = monitorEventLoopDelay({ resolution: 10 });
  lag.enable();
  m.counterOf('process_cpu_seconds_total', 'Total user and system CPU time spent in seconds.', ['mode'], () => {
    const u = process.cpuUsage();
    return [
      [['user'], u.user / 1e6],
      [['system'], u.system / 1e6],
    ];
  });
  m.gauge('process_resident_memory_bytes', 'Resident memory size in bytes.', [], () => [
    [[], process.memoryUsage.rss()],
  ]);
  m.gauge('nodejs_heap_used_bytes', 'V8 heap in use, in bytes.', [], () => [[[], process.memoryUsage().heapUsed]]);
  m.gauge('process_open_fds', 'Number of open file descriptors.', [], () => {
    try {
      return [[[], readdirSync('/proc/self/fd').length]];
    } catch {
      return [];
    }
  });
  m.gauge('process_start_time_seconds', 'Start time of the process since the Unix epoch in seconds.', [], () => [
    [[], startSeconds],
  ]);
  // The delay histogram covers the time since the previous scrape (it restarts after each one).
  m.gauge(
    'nodejs_eventloop_lag_seconds',
    'Event loop delay since the previous scrape: mean, 50th and 99th percentile, and maximum.',
    ['stat'],
    () => {
      const n = lag.count > 0;
      const out: Array<[string[], number]> = [
        [['mean'], n ? lag.mean / 1e9 : 0],
        [['p50'], n ? lag.percentile(50) / 1e9 : 0],
        [['p99'], n ? lag.percentile(99) / 1e9 : 0],
        [['max'], n ? lag.max / 1e9 : 0],
      ];
      lag.reset();
      return out;
    },
  );
  return { stop: () => lag.disable() };
}
