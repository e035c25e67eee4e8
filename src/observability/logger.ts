// The server's logger: pino, writing JSON lines (for log shippers), or human-readable lines when a
// person reads them (stdout is a terminal, or --log-format pretty), and counting what it writes by
// level (slipway_log_lines_total, slipway_log_bytes_total).
// https://getpino.io/#/docs/api?id=hooks-object
import pino, { type DestinationStream, type Logger } from 'pino';
import type { Counter } from './registry.js';

export type LogFormat = 'auto' | 'json' | 'pretty';

const LEVELS: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };
const COLOR: Record<string, string> = { trace: '90', debug: '36', info: '32', warn: '33', error: '31', fatal: '35' };
/** Fields every line has; the pretty form shows them in its own way. */
const SHOWN = new Set(['level', 'time', 'msg', 'service', 'pid', 'hostname', 'err']);

export interface LogCounters {
  readonly lines: Counter;
  readonly bytes: Counter;
}

export interface LoggerOptions {
  readonly level: string;
  readonly format: LogFormat;
  /** Where lines go (default stdout). */
  readonly destination?: DestinationStream & { isTTY?: boolean };
  readonly counters?: LogCounters;
}

export function createLogger(o: LoggerOptions): Logger {
  const dest = o.destination ?? pino.destination({ fd: 1, sync: true });
  const tty = o.destination ? o.destination.isTTY === true : process.stdout.isTTY === true;
  const pretty = o.format === 'pretty' || (o.format === 'auto' && tty);
  const color = pretty && tty && !process.env.NO_COLOR;
  const series = new Map<string, { lines: { inc(n?: number): void }; bytes: { inc(n?: number): void } }>();
  const count = (line: string) => {
    const c = o.counters;
    if (!c) return;
    const m = /^\{"level":(\d+)/.exec(line);
    const level = LEVELS[Number(m?.[1])] ?? 'info';
    let s = series.get(level);
    if (!s) {
      s = { lines: c.lines.with(level), bytes: c.bytes.with(level) };
      series.set(level, s);
    }
    s.lines.inc();
    s.bytes.inc(line.length);
  };
  return pino(
    {
      level: o.level,
      base: { service: 'slipway' },
      hooks: {
        streamWrite(line: string): string {
          count(line);
          return pretty ? prettyLine(line, color) : line;
        },
      },
    },
    dest,
  );
}

/** `12:03:04.567 INFO  message key=value …`, and an error's stack indented below. */
export function prettyLine(json: string, color = false): string {
  let rec: Record<string, unknown>;
  try {
    rec = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const level = LEVELS[Number(rec.level)] ?? String(rec.level);
  const t = new Date(Number(rec.time));
  const time = Number.isNaN(t.getTime())
    ? ''
    : `${String(t.getHours()).padStart(2, '0')}:${String(t.getMinutes()).padStart(2, '0')}:${String(t.getSeconds()).padStart(2, '0')}.${String(t.getMilliseconds()).padStart(3, '0')}`;
  const tag = level.toUpperCase().padEnd(5);
  const head = color ? `\x1b[${COLOR[level] ?? '0'}m${tag}\x1b[0m` : tag;
  const fields: string[] = [];
  for (const [k, v] of Object.entries(rec)) {
    if (SHOWN.has(k) || v === undefined) continue;
    fields.push(
      `${k}=${typeof v === 'string' ? (/[\s"=]/.test(v) || v === '' ? JSON.stringify(v) : v) : JSON.stringify(v)}`,
    );
  }
  let line = `${time} ${head} ${String(rec.msg ?? '')}${fields.length ? ` ${color ? '\x1b[2m' : ''}${fields.join(' ')}${color ? '\x1b[0m' : ''}` : ''}`;
  const err = rec.err as { type?: string; message?: string; stack?: string } | undefined;
  if (err) line += `\n    ${(err.stack ?? `${err.type ?? 'Error'}: ${err.message ?? ''}`).split('\n').join('\n    ')}`;
  return `${line}\n`;
}
