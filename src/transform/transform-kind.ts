// Batch transform jobs on the job runner: the model's variant deployed through the inference engine
// (no endpoint), each input object streamed in batches to it, MaxConcurrentTransforms requests in
// flight, the answers filtered, joined and streamed to `<S3OutputPath>/<object>.out` in input order.
// On failure every output written is deleted. https://docs.aws.amazon.com/sagemaker/latest/dg/batch-transform.html
import { once } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { CreateTransformJobRequest } from '../generated/sagemaker/shapes.js';
import type { DeployedVariant, InferenceEngine } from '../inference/engine.js';
import { checkRoleAccess, type JobAccess } from '../jobs/job-access.js';
import { isDiskFull, JobFailure, uploadFailure } from '../jobs/job-failure.js';
import { type TableJobDoc, type TableWork, tableJobKind } from '../jobs/table-job.js';
import type { JobKind } from '../jobs/types.js';
import type { ServiceDeps } from '../services/common/deps.js';
import { resolveModelContainers } from '../services/sagemaker/models.js';
import type { BlobStore } from '../storage/blobs/blob-store.js';
import { ChannelError, resolveChannel } from '../training/channels.js';
import { type AppendLogs, JobLog } from '../training/job-output.js';
import { type Batch, batches, PayloadMemory, payloads } from './records.js';
import { recordShaper } from './shape.js';

export const TRANSFORM_KIND = 'transform-job';
export const TRANSFORM_LOG_GROUP = '/aws/sagemaker/TransformJobs';
/** DEVIATION(aws): transform jobs have no StoppingCondition; a day bounds a run that hangs. */
const MAX_RUNTIME_SECONDS = 86_400;

export interface TransformJobDoc extends Omit<CreateTransformJobRequest, 'Tags' | 'TransformJobName'>, TableJobDoc {}

export interface TransformOptions {
  readonly deps: ServiceDeps;
  readonly blobs: BlobStore;
  readonly engine: InferenceEngine;
  readonly appendLogs: AppendLogs;
  readonly concurrency?: number;
  /** What roles may do with S3 (a credentials file in force); the model's ExecutionRoleArn is checked. */
  readonly access?: JobAccess;
}

export function transformKind(o: TransformOptions): JobKind<TableWork> {
  return tableJobKind<TableWork, TransformJobDoc>({
    name: TRANSFORM_KIND,
    table: o.deps.repos.transformJobs,
    db: o.deps.db,
    lineage: 'transform',
    label: 'Transform job',
    concurrency: o.concurrency,
    defaultMaxRuntimeSeconds: MAX_RUNTIME_SECONDS,
    timeoutReason: 'Transform job runtime exceeded its time limit',
    run: async ({ ctx, job, complete }) => {
      const { row, doc } = job;
      const p = ctx.payload;
      const log = new JobLog(
        o.appendLogs,
        p,
        TRANSFORM_LOG_GROUP,
        `${row.name}/algo-1-${Math.floor(Date.now() / 1000)}`,
      );
      let variant: DeployedVariant | undefined;
      const written: string[] = [];
      try {
        let model: Awaited<ReturnType<typeof resolveModelContainers>>;
        try {
          model = await resolveModelContainers(o.deps, o.deps.db, p, doc.ModelName);
        } catch (e) {
          throw new JobFailure(`ClientError: ${(e as Error).message}`);
        }
        const { containers } = model;
        // A transform job reads its input and writes its output as the model's execution role.
        checkRoleAccess(
          o.access,
          (JSON.parse(model.row.doc) as { ExecutionRoleArn?: string }).ExecutionRoleArn ?? '',
          [doc.TransformInput.DataSource.S3DataSource.S3Uri],
          [doc.TransformOutput.S3OutputPath],
        );
        const objects = await resolveChannel(
          o.blobs,
          { ChannelName: 'input', DataSource: { S3DataSource: { ...doc.TransformInput.DataSource.S3DataSource } } },
          p.region,
          'the job',
        );
        const conc = Math.max(1, doc.MaxConcurrentTransforms ?? 1);
        const env = batchEnvironment(doc);
        variant = await o.engine
          .deploy({
            endpointName: `transform-job-${row.name}`,
            variantName: 'AllTraffic',
            containers: containers.map((c) => ({
              image: c.image,
              modelDataUrl: c.modelDataUrl,
              environment: { ...c.environment, ...doc.Environment, ...env },
              networkIsolation: c.networkIsolation,
            })),
            // DEVIATION(aws): the instances of TransformResources are workers of the engine's pool.
            serverless: { memorySizeInMB: 6144, maxConcurrency: conc, provisionedConcurrency: conc },
          })
          .catch((e: Error) => {
            throw new JobFailure(`ClientError: ${e.message}`);
          });
        log.write(`Slipway transform job ${row.name}: ${objects.length} object(s), model ${doc.ModelName}`);
        const out = doc.TransformOutput.S3OutputPath.replace(/\/+$/, '');
        // Objects go through side by side, sharing the MaxConcurrentTransforms requests: small
        // objects keep every worker busy too.
        const slots = new Slots(conc);
        const memory = new PayloadMemory();
        const failed = new AbortController();
        const signal = AbortSignal.any([ctx.signal, failed.signal]);
        let records = 0;
        let next = 0;
        let first: { error: unknown } | undefined;
        const lane = async () => {
          while (next < objects.length) {
            if (signal.aborted) throw signal.reason;
            const obj = objects[next++]!;
            const target = `${out}/${obj.relative}.out`;
            written.push(target);
            records += await transformObject(o.blobs, variant!, doc, obj.uri, target, conc, slots, memory, signal);
            log.write(`${obj.uri} → ${target}`);
          }
        };
        // Twice as many objects as requests, so that one object's upload finishing (its fsync) or its
        // next read leaves no request slot idle.
        const lanes = Array.from({ length: Math.min(2 * conc, objects.length) }, () =>
          lane().catch((e: unknown) => {
            first ??= { error: e };
            failed.abort(e);
          }),
        );
        await Promise.all(lanes);
        if (first) throw first.error;
        log.write(`Transformed ${records} record(s)`);
        await log.close();
        await complete(() => {}, {
          'SageMaker.TransformOutput': { uri: doc.TransformOutput.S3OutputPath, type: 'DataSet' },
        });
        written.length = 0;
      } catch (e) {
        log.write(`Transform job failed: ${(e as Error).message}`);
        if (e instanceof ChannelError) throw new JobFailure(e.message);
        if (!(e instanceof JobFailure) && isDiskFull(e)) throw uploadFailure(e, "The transform job's output");
        throw e;
      } finally {
        // Nothing half-written stays under the output prefix.
        await Promise.all(written.map((u) => o.blobs.delete(u).catch(() => {})));
        await variant?.stop().catch(() => {});
        await log.close();
      }
    },
  });
}

/** What SageMaker tells a container it serves a batch transform job. */
function batchEnvironment(doc: TransformJobDoc): Record<string, string> {
  return {
    SAGEMAKER_BATCH: 'true',
    SAGEMAKER_MAX_PAYLOAD_IN_MB: String(doc.MaxPayloadInMB ?? 6),
    SAGEMAKER_BATCH_STRATEGY: doc.BatchStrategy === 'MultiRecord' ? 'MULTI_RECORD' : 'SINGLE_RECORD',
    SAGEMAKER_MAX_CONCURRENT_TRANSFORMS: String(doc.MaxConcurrentTransforms ?? 1),
  };
}

/** Streams one object through the model into its `.out`; returns the records it read. */
async function transformObject(
  blobs: BlobStore,
  variant: DeployedVariant,
  doc: TransformJobDoc,
  uri: string,
  target: string,
  conc: number,
  slots: Slots,
  memory: PayloadMemory,
  signal: AbortSignal,
): Promise<number> {
  const input = doc.TransformInput;
  const maxMB = doc.MaxPayloadInMB ?? 6;
  let body: Readable = await blobs.get(uri);
  if (input.CompressionType === 'Gzip') body = body.pipe(createGunzip());
  const shaper = recordShaper(doc);
  const sink = new PassThrough();
  const put = blobs.put(target, sink, { contentType: doc.TransformOutput.Accept ?? 'application/octet-stream' });
  put.catch(() => {});
  const write = async (b: Buffer) => {
    if (b.length > 0 && !sink.write(b)) await once(sink, 'drain');
  };
  const invoke = async (batch: Batch): Promise<Buffer> => {
    try {
      const res = await variant.invoke({
        body: shaper.request(batch),
        contentType: input.ContentType,
        accept: doc.TransformOutput.Accept,
      });
      return shaper.response(batch, Buffer.from(res.body.buffer, res.body.byteOffset, res.body.byteLength), uri);
    } catch (e) {
      if (e instanceof JobFailure) throw e;
      throw await refused(variant, doc, shaper, batch, uri, e as Error);
    }
  };
  const inFlight: Promise<Buffer>[] = [];
  let records = 0;
  const split =
    input.SplitType === 'Line' ? 'Line' : input.SplitType && input.SplitType !== 'None' ? bad(input.SplitType) : 'None';
  const multi = doc.BatchStrategy === 'MultiRecord';
  const maxBytes = maxMB === 0 ? Number.POSITIVE_INFINITY : maxMB * 1048576;
  // Payloads cut from the bytes when no record needs to be seen on its own (no filter, no join).
  const source =
    split === 'Line' && multi && !shaper.perRecord
      ? payloads(body, { maxBytes, uri, memory })
      : batches(body, { split, multi, maxBytes, uri });
  try {
    for await (const batch of source) {
      if (signal.aborted) throw signal.reason;
      records += batch.count;
      await slots.acquire();
      const p = invoke(batch).finally(() => {
        slots.release();
        batch.release?.();
      });
      p.catch(() => {});
      inFlight.push(p);
      if (inFlight.length >= conc) await write(await inFlight.shift()!);
    }
    while (inFlight.length > 0) await write(await inFlight.shift()!);
    sink.end();
    await put;
  } catch (e) {
    sink.destroy(e as Error);
    body.destroy();
    throw e instanceof Error && (e as { code?: string }).code === 'Z_DATA_ERROR'
      ? new JobFailure(`ClientError: ${uri} is not valid gzip data: ${e.message}`)
      : e;
  }
  return records;
}

function bad(split: string): never {
  throw new JobFailure(`ClientError: SplitType ${split} is not supported; use None or Line.`);
}

/** Finds the record a batch's failure belongs to (sent alone, one by one), and words the failure. */
async function refused(
  variant: DeployedVariant,
  doc: TransformJobDoc,
  shaper: ReturnType<typeof recordShaper>,
  batch: Batch,
  uri: string,
  err: Error,
): Promise<JobFailure> {
  let at = batch.first;
  let why = err.message;
  if (batch.count > 1) {
    const records = batch.records;
    for (let i = 0; i < records.length; i++) {
      const one: Batch = {
        records: [records[i]!],
        first: batch.first + i,
        count: 1,
        body: Buffer.concat([records[i]!, Buffer.from('\n')]),
      };
      try {
        await variant.invoke({
          body: shaper.request(one),
          contentType: doc.TransformInput.ContentType,
          accept: doc.TransformOutput.Accept,
        });
      } catch (e) {
        at = one.first;
        why = (e as Error).message;
        break;
      }
    }
  }
  const detail = (err as { OriginalMessage?: string }).OriginalMessage ?? why;
  return new JobFailure(`ClientError: The model refused record ${at} of ${uri}: ${detail}`);
}

/** Requests in flight, shared by the objects transformed side by side. */
class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(n: number) {
    this.free = n;
  }

  async acquire(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}
