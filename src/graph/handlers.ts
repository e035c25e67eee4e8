// The neptunedata operations Slipway serves on the graph port: bulk loader, fast reset, status.
// https://docs.aws.amazon.com/neptune/latest/data-api/API_Operations.html
import {
  BadRequestException,
  BulkLoadIdNotFoundException,
  InvalidParameterException,
  S3Exception,
} from '../generated/neptunedata/errors.js';
import type { NeptuneDataHandlers } from '../generated/neptunedata/handlers.js';
import type { GetEngineStatusOutput } from '../generated/neptunedata/shapes.js';
import { type LoadJobs, LoaderRequestError } from './loader/load-jobs.js';
import type { GraphWriter } from './store/graph-store.js';
import type { FastResetTokens } from './system/fast-reset.js';
import type { Queryable } from '../storage/db/types.js';

export interface GraphHandlerDeps {
  readonly jobs: LoadJobs;
  readonly tokens: FastResetTokens;
  readonly writer: (tx: Queryable) => GraphWriter;
  readonly startTime: Date;
  readonly version: string;
}

function mapLoaderError(err: unknown): never {
  if (err instanceof LoaderRequestError) {
    switch (err.code) {
      case 'BulkLoadIdNotFoundException':
        throw new BulkLoadIdNotFoundException(err.message);
      case 'InvalidParameterException':
        throw new InvalidParameterException(err.message);
      case 'S3Exception':
        throw new S3Exception(err.message);
      default:
        throw new BadRequestException(err.message);
    }
  }
  throw err;
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number) => String(n).padStart(2, '0');

/** Java's Date.toString() in UTC, as Neptune writes startTime: `Wed Nov 04 23:24:44 UTC 2020`. */
export function javaDateString(d: Date): string {
  return `${DAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} UTC ${d.getUTCFullYear()}`;
}

export function createGraphHandlers(d: GraphHandlerDeps): NeptuneDataHandlers {
  return {
    async startLoaderJob(input) {
      if (input.format !== 'csv' && input.format !== 'opencypher') {
        // DEVIATION(neptune): the store is a property graph; RDF formats are not loaded.
        throw new BadRequestException(
          `Slipway's graph store loads property-graph data (csv, opencypher); format '${input.format}' is not supported`,
        );
      }
      try {
        const loadId = await d.jobs.start({
          source: input.source,
          format: input.format,
          region: input.s3BucketRegion,
          iamRoleArn: input.iamRoleArn,
          mode: input.mode ?? 'AUTO',
          failOnError: input.failOnError ?? true,
          parallelism: input.parallelism ?? 'HIGH',
          parserConfiguration: input.parserConfiguration ?? {},
          updateSingleCardinalityProperties: input.updateSingleCardinalityProperties ?? false,
          queueRequest: input.queueRequest ?? false,
          dependencies: input.dependencies ?? [],
        });
        return { status: '200 OK', payload: { loadId } };
      } catch (err) {
        mapLoaderError(err);
      }
    },

    async getLoaderJobStatus(input) {
      try {
        const payload = await d.jobs.status(input.loadId, {
          details: input.details ?? false,
          errors: input.errors ?? false,
          page: input.page ?? 1,
          errorsPerPage: input.errorsPerPage ?? 10,
        });
        return { status: '200 OK', payload };
      } catch (err) {
        mapLoaderError(err);
      }
    },

    async listLoaderJobs(input) {
      return {
        status: '200 OK',
        payload: { loadIds: d.jobs.list(input.limit ?? 100, input.includeQueuedLoads ?? true) },
      };
    },

    async cancelLoaderJob(input) {
      try {
        d.jobs.cancel(input.loadId);
        return { status: '200 OK' };
      } catch (err) {
        mapLoaderError(err);
      }
    },

    async executeFastReset(input) {
      if (input.action === 'initiateDatabaseReset') {
        return { status: '200 OK', payload: { token: d.tokens.initiate() } };
      }
      d.tokens.consume(input.token);
      await d.jobs.resetAll((tx) => d.writer(tx).clear());
      return { status: '200 OK' };
    },

    async getEngineStatus(): Promise<GetEngineStatusOutput> {
      return {
        status: 'healthy',
        startTime: javaDateString(d.startTime),
        dbEngineVersion: `slipway-${d.version}`,
        role: 'writer',
        dfeQueryEngine: 'viaQueryHint',
        // Only what is served: Gremlin. SPARQL and openCypher queries are not, so they are not advertised.
        gremlin: { version: 'tinkerpop-3.7.2' },
        labMode: { ObjectIndex: 'disabled', ReadWriteConflictDetection: 'enabled' },
        features: {
          ResultCache: { status: 'disabled' },
          IAMAuthentication: 'disabled',
          Streams: 'disabled',
          AuditLog: 'disabled',
        },
        settings: { clusterQueryTimeoutInMs: '120000', SlowQueryLogsThreshold: '5000', SlowQueryLogs: 'disabled' },
      };
    },
  };
}
