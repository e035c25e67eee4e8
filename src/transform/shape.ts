// DataProcessing for batch transform: InputFilter on each record before it is sent, JoinSource Input
// (the output appended to a CSV record, or under "SageMakerOutput" of a JSON object), OutputFilter on
// what is written, and AssembleWith Line | None. A CSV record is the array of its cells.
// https://docs.aws.amazon.com/sagemaker/latest/dg/batch-transform-data-processing.html
import { JobFailure } from '../jobs/job-failure.js';
import type { Batch } from './records.js';
import { applyJsonPath, parseJsonPath, type Step } from './json-path.js';
import type { TransformJobDoc } from './transform-kind.js';

const NL = Buffer.from('\n');

type Format = 'csv' | 'json';
const formatOf = (mediaType: string | undefined): Format => (/json/i.test(mediaType ?? '') ? 'json' : 'csv');

function decode(text: string, f: Format, what: string): unknown {
  if (f === 'csv') return text.split(',');
  try {
    return JSON.parse(text);
  } catch {
    throw new JobFailure(`ClientError: ${what} is not valid JSON: ${text.slice(0, 200)}`);
  }
}

function encode(v: unknown, f: Format): string {
  if (f === 'csv') return Array.isArray(v) ? v.join(',') : v === undefined ? '' : String(v);
  return JSON.stringify(v) ?? '';
}

function filter(steps: Step[] | undefined, text: string, f: Format, what: string): string {
  return steps ? encode(applyJsonPath(steps, decode(text, f, what)), f) : text;
}

export interface RecordShaper {
  /** Whether records are filtered or joined one by one (the bulk path then does not apply). */
  readonly perRecord: boolean;
  request(batch: Batch): Uint8Array;
  response(batch: Batch, body: Buffer, uri: string): Buffer;
}

export function recordShaper(doc: TransformJobDoc): RecordShaper {
  const dp = doc.DataProcessing ?? {};
  const inFilter = dp.InputFilter && dp.InputFilter.trim() !== '$' ? parseJsonPath(dp.InputFilter) : undefined;
  const outFilter = dp.OutputFilter && dp.OutputFilter.trim() !== '$' ? parseJsonPath(dp.OutputFilter) : undefined;
  const join = dp.JoinSource === 'Input';
  const inFormat = formatOf(doc.TransformInput.ContentType);
  const outFormat = formatOf(doc.TransformOutput.Accept);
  const line = doc.TransformOutput.AssembleWith === 'Line';
  const perRecord = join || outFilter !== undefined;

  return {
    perRecord: perRecord || inFilter !== undefined,
    request(batch) {
      if (!inFilter) return batch.body;
      const parts: Buffer[] = [];
      batch.records.forEach((r, i) => {
        parts.push(Buffer.from(filter(inFilter, r.toString('utf8'), inFormat, `record ${batch.first + i}`)), NL);
      });
      if (batch.records.length === 1 && doc.TransformInput.SplitType !== 'Line') parts.pop();
      return Buffer.concat(parts);
    },
    response(batch, body, uri) {
      if (!perRecord) {
        if (line && body.length > 0 && body[body.length - 1] !== 10) return Buffer.concat([body, NL]);
        return body;
      }
      const text = body.toString('utf8');
      const outputs =
        batch.records.length === 1 ? [text.replace(/\r?\n$/, '')] : text.replace(/\r?\n$/, '').split(/\r?\n/);
      if (outputs.length !== batch.records.length) {
        throw new JobFailure(
          `ClientError: The model answered ${outputs.length} record(s) for records ${batch.first}-${batch.first + batch.records.length - 1} of ${uri}; JoinSource and OutputFilter need one output line per input record.`,
        );
      }
      const parts: string[] = [];
      outputs.forEach((out, i) => {
        const what = `record ${batch.first + i} of ${uri}`;
        let rec = out;
        let f = outFormat;
        if (join) {
          const input = batch.records[i]!.toString('utf8');
          f = inFormat;
          if (inFormat === 'csv') rec = `${input},${out}`;
          else {
            const src = decode(input, 'json', what);
            let value: unknown = out;
            try {
              value = JSON.parse(out);
            } catch {}
            rec = JSON.stringify(
              Array.isArray(src)
                ? [...src, value]
                : src !== null && typeof src === 'object'
                  ? { ...src, SageMakerOutput: value }
                  : { SageMakerInput: src, SageMakerOutput: value },
            );
          }
        }
        parts.push(filter(outFilter, rec, f, what));
      });
      return Buffer.from(line ? `${parts.join('\n')}\n` : parts.join(''));
    },
  };
}
