// The CloudWatch Logs API that SageMaker job logs are read through: DescribeLogGroups,
// DescribeLogStreams, GetLogEvents and FilterLogEvents, so `aws logs tail` and the SageMaker SDK's
// log streaming work against Slipway. https://docs.aws.amazon.com/AmazonCloudWatchLogs/latest/APIReference/
import type { Partition } from '../../domain/arn.js';
import { parseArn } from '../../domain/arn.js';
import { InvalidParameterException, ResourceNotFoundException } from '../../generated/logs/errors.js';
import type { LogsHandlers } from '../../generated/logs/handlers.js';
import type { LogGroup, LogStream } from '../../generated/logs/shapes.js';
import type { Queryable } from '../../storage/db/types.js';
import type { LogLine, LogStreamRow } from '../../storage/repositories/log-events.js';
import type { ServiceDeps } from '../common/deps.js';
import { compileFilterPattern } from './filter-pattern.js';

/** Events a FilterLogEvents call reads at most before it answers (with a nextToken if there is more). */
const FILTER_SCAN_BUDGET = 100_000;
/** Tokens of GetLogEvents look like CloudWatch's: a direction and a 56-digit position. */
const POSITION_DIGITS = 56;

const groupArn = (p: Partition, group: string) => `arn:aws:logs:${p.region}:${p.accountId}:log-group:${group}`;

/** Appends lines to a stream in one transaction, creating the group and the stream when missing. */
export async function appendLogs(
  deps: ServiceDeps,
  p: Partition,
  group: string,
  stream: string,
  lines: readonly LogLine[],
) {
  await deps.db.transaction((tx) => deps.repos.logs.append(tx, p, group, stream, lines, Date.now()));
}

export function createLogsHandlers(deps: ServiceDeps): LogsHandlers {
  const { db, repos, tokens } = deps;

  /** The group a request names by logGroupName or logGroupIdentifier (a name or an ARN). */
  async function group(q: Queryable, p: Partition, input: { logGroupName?: string; logGroupIdentifier?: string }) {
    if (input.logGroupName !== undefined && input.logGroupIdentifier !== undefined) {
      throw new InvalidParameterException('LogGroup name and LogGroup ARN are mutually exclusive parameters.');
    }
    let name = input.logGroupName ?? input.logGroupIdentifier;
    if (name === undefined)
      throw new InvalidParameterException('Either logGroupName or logGroupIdentifier must be specified.');
    if (name.startsWith('arn:')) {
      const a = parseArn(name);
      name = a?.resourceType === 'log-group' ? a.resource.replace(/:\*$/, '') : name;
    }
    if ((await repos.logs.groupCreatedAt(q, p, name)) === undefined) {
      throw new ResourceNotFoundException('The specified log group does not exist.');
    }
    return name;
  }

  const streamShape = (p: Partition, s: LogStreamRow): LogStream => ({
    logStreamName: s.name,
    creationTime: s.created_at,
    firstEventTimestamp: s.first_event ?? undefined,
    lastEventTimestamp: s.last_event ?? undefined,
    lastIngestionTime: s.last_ingestion ?? undefined,
    arn: `${groupArn(p, s.log_group)}:log-stream:${s.name}`,
    storedBytes: s.stored_bytes,
  });

  const position = (dir: 'f' | 'b', n: number) => `${dir}/${String(n).padStart(POSITION_DIGITS, '0')}`;

  return {
    async describeLogGroups(input, ctx) {
      if (input.logGroupNamePrefix !== undefined && input.logGroupNamePattern !== undefined) {
        throw new InvalidParameterException(
          'LogGroup name prefix and LogGroup name pattern are mutually exclusive parameters.',
        );
      }
      const limit = input.limit ?? 50;
      const filter = { prefix: input.logGroupNamePrefix, contains: input.logGroupNamePattern };
      const scope = `DescribeLogGroups|${ctx.accountId}|${ctx.region}|${JSON.stringify(filter)}`;
      const after = input.nextToken ? tokens.decode<string>(scope, input.nextToken) : undefined;
      const rows = await repos.logs.groups(db, ctx, filter, after, limit + 1);
      const page = rows.slice(0, limit);
      const logGroups = page.map(
        (g): LogGroup => ({
          logGroupName: g.name,
          creationTime: g.created_at,
          metricFilterCount: 0,
          arn: `${groupArn(ctx, g.name)}:*`,
          logGroupArn: groupArn(ctx, g.name),
          storedBytes: g.stored_bytes,
          logGroupClass: 'STANDARD',
        }),
      );
      const more = rows.length > limit;
      return { logGroups, nextToken: more ? tokens.encode(scope, page[page.length - 1]!.name) : undefined };
    },

    async describeLogStreams(input, ctx) {
      const name = await group(db, ctx, input);
      const byLastEvent = input.orderBy === 'LastEventTime';
      if (byLastEvent && input.logStreamNamePrefix !== undefined) {
        throw new InvalidParameterException('Cannot order by LastEventTime with a logStreamNamePrefix.');
      }
      const limit = input.limit ?? 50;
      const o = { prefix: input.logStreamNamePrefix, byLastEvent, descending: input.descending ?? false };
      const scope = `DescribeLogStreams|${ctx.accountId}|${ctx.region}|${name}|${JSON.stringify(o)}`;
      const after = input.nextToken ? tokens.decode<[number | null, string]>(scope, input.nextToken) : undefined;
      const rows = await repos.logs.streams(db, ctx, name, o, after, limit + 1);
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      return {
        logStreams: page.map((s) => streamShape(ctx, s)),
        nextToken: rows.length > limit && last ? tokens.encode(scope, [last.last_event ?? 0, last.name]) : undefined,
      };
    },

    async getLogEvents(input, ctx) {
      const name = await group(db, ctx, input);
      const stream = await repos.logs.stream(db, ctx, name, input.logStreamName);
      if (!stream) throw new ResourceNotFoundException('The specified log stream does not exist.');
      const limit = input.limit ?? 10_000;
      // A position n stands between the events numbered n - 1 and n (seq counts from 0).
      let backwards = !input.startFromHead;
      let at = backwards ? Number.MAX_SAFE_INTEGER : 0;
      if (input.nextToken !== undefined) {
        const m = /^([fb])\/(\d{1,56})$/.exec(input.nextToken);
        if (!m) throw new InvalidParameterException('The specified nextToken is invalid.');
        backwards = m[1] === 'b';
        at = Number(m[2]);
      }
      const window = { startTime: input.startTime, endTime: input.endTime };
      const events = await repos.logs.streamEvents(
        db,
        ctx,
        name,
        input.logStreamName,
        backwards ? { ...window, beforeSeq: at, backwards } : { ...window, afterSeq: at - 1, backwards },
        limit,
      );
      const first = events[0];
      const last = events[events.length - 1];
      // With nothing read, the tokens stay where the request was (the tail of an empty stream is 0).
      const here = at === Number.MAX_SAFE_INTEGER ? 0 : at;
      return {
        events: events.map((e) => ({ timestamp: e.event_time, message: e.message, ingestionTime: e.ingestion_time })),
        nextForwardToken: position('f', last ? last.seq + 1 : here),
        nextBackwardToken: position('b', first ? first.seq : here),
      };
    },

    async filterLogEvents(input, ctx) {
      const name = await group(db, ctx, input);
      if (input.logStreamNames !== undefined && input.logStreamNamePrefix !== undefined) {
        throw new InvalidParameterException(
          'logStreamNames and logStreamNamePrefix are mutually exclusive parameters.',
        );
      }
      const matches = compileFilterPattern(input.filterPattern);
      const limit = input.limit ?? 10_000;
      const o = {
        streams: input.logStreamNames,
        prefix: input.logStreamNamePrefix,
        startTime: input.startTime,
        endTime: input.endTime,
      };
      const scope = `FilterLogEvents|${ctx.accountId}|${ctx.region}|${name}|${JSON.stringify(o)}|${input.filterPattern ?? ''}`;
      let after = input.nextToken ? tokens.decode<[number, string, number]>(scope, input.nextToken) : undefined;
      const out: Array<{
        logStreamName: string;
        timestamp: number;
        message: string;
        ingestionTime: number;
        eventId: string;
      }> = [];
      let scanned = 0;
      let exhausted = false;
      // Bounded work per call: past the scan budget the caller gets what matched so far and a token.
      while (out.length < limit && scanned < FILTER_SCAN_BUDGET) {
        const batch = await repos.logs.groupEvents(
          db,
          ctx,
          name,
          o,
          after,
          Math.min(1000, FILTER_SCAN_BUDGET - scanned),
        );
        scanned += batch.length;
        for (const e of batch) {
          after = [e.event_time, e.log_stream, e.seq];
          if (!matches(e.message)) continue;
          out.push({
            logStreamName: e.log_stream,
            timestamp: e.event_time,
            message: e.message,
            ingestionTime: e.ingestion_time,
            eventId: `${String(e.event_time).padStart(20, '0')}${String(e.seq).padStart(36, '0')}`,
          });
          if (out.length === limit) break;
        }
        if (batch.length < 1000 && out.length < limit) {
          exhausted = true;
          break;
        }
      }
      return { events: out, nextToken: exhausted || !after ? undefined : tokens.encode(scope, after) };
    },
  };
}
