// Exports lineage as Neptune bulk-load files: one node file per entity type and one edge file,
// streamed page by page from a LineageSource (no per-node calls, no graph held in memory).
// Gremlin CSV (the seed's names and columns, typed) or openCypher CSV, RFC 4180 quoted.
// https://docs.aws.amazon.com/neptune/latest/userguide/bulk-load-tutorial-format-gremlin.html
// https://docs.aws.amazon.com/neptune/latest/userguide/bulk-load-tutorial-format-opencypher.html
import { createHash } from 'node:crypto';
import { csvRecord } from '../../graph/csv/csv-writer.js';
import { EDGE_FILE, isExportedArn, type LineageEdge, type LineageSource, NODE_FILES, type NodeFile } from './model.js';

export type ExportFormat = 'gremlin' | 'opencypher';

/** Where files go: a directory or an s3:// prefix. Each file is written as a stream of chunks. */
export interface ExportOutput {
  /** Opens a file; write() resolves when the chunk is accepted (back-pressure). */
  open(name: string): Promise<{ write(chunk: string): Promise<void>; close(): Promise<void> }>;
  /** Where the files are, as the user passed it (for `--load`: the loader's source). */
  readonly location: string;
}

export interface ExportProgress {
  nodes: number;
  edges: number;
  /** Associations with an end that is not an exported node (experiments, trials). */
  skippedEdges: number;
}

export interface ExportResult extends ExportProgress {
  readonly files: readonly string[];
}

/**
 * Node ids: the ARN's resource part (`artifact/<id>`, `action/<name>`, ...), unique within the
 * exported account and region, so an id is the same in every export and a second load merges
 * instead of duplicating; ARN order is id order, so a load appends to its indexes.
 * DEVIATION(seed): the notebook numbers nodes (0.., t0.., ac0.., ctx0..) per run, which makes two
 * exports collide in one graph and needs an ARN → id map in memory to write the edges.
 */
export function nodeId(arn: string): string {
  const i = arn.indexOf(':', arn.indexOf(':', arn.indexOf(':', arn.indexOf(':', arn.indexOf(':') + 1) + 1) + 1) + 1);
  return i < 0 ? arn : arn.slice(i + 1);
}

/** Edge ids: a short digest of both ends (an association is unique per source and destination). */
export function edgeId(e: LineageEdge): string {
  return createHash('sha1')
    .update(e.sourceArn)
    .update('\u0000')
    .update(e.destinationArn)
    .digest('base64url')
    .slice(0, 16);
}

/** Neptune's Date format without fractions (yyyy-MM-ddTHH:mm:ssZ), which every engine version reads. */
function date(d: Date | undefined): string | undefined {
  if (!d || Number.isNaN(d.getTime())) return undefined;
  return `${d.toISOString().slice(0, 19)}Z`;
}

function header(f: NodeFile, format: ExportFormat): string[] {
  if (format === 'gremlin') return ['~id', '~label', ...f.columns.map((c) => `${c.name}:${c.type}(single)`)];
  return [':ID', ':LABEL', ...f.columns.map((c) => `${c.name}:${c.type === 'Date' ? 'DateTime' : 'String'}`)];
}

const EDGE_HEADER: Record<ExportFormat, string[]> = {
  gremlin: ['~id', '~from', '~to', '~label'],
  opencypher: [':ID', ':START_ID', ':END_ID', ':TYPE'],
};

/** Writes every node file, then the edge file; returns what it wrote. */
export async function exportLineage(o: {
  source: LineageSource;
  output: ExportOutput;
  format: ExportFormat;
  onProgress?: (p: ExportProgress) => void;
}): Promise<ExportResult> {
  const progress: ExportProgress = { nodes: 0, edges: 0, skippedEdges: 0 };
  const files: string[] = [];
  // Rows are joined into chunks of about this many characters before each write.
  const CHUNK = 256 * 1024;
  for (const f of NODE_FILES) {
    const out = await o.output.open(f.file);
    files.push(f.file);
    let buf = csvRecord(header(f, o.format));
    for await (const page of o.source.nodes(f.kind)) {
      for (const n of page) {
        const row: (string | undefined)[] = [nodeId(n.arn), f.label];
        for (const c of f.columns) {
          const v = c.get(n);
          row.push(v instanceof Date ? date(v) : v);
        }
        buf += csvRecord(row);
        progress.nodes++;
      }
      if (buf.length >= CHUNK) {
        await out.write(buf);
        buf = '';
      }
      o.onProgress?.(progress);
    }
    await out.write(buf);
    await out.close();
  }
  const out = await o.output.open(EDGE_FILE);
  files.push(EDGE_FILE);
  let buf = csvRecord(EDGE_HEADER[o.format]);
  for await (const page of o.source.edges()) {
    for (const e of page) {
      // The seed writes an edge only between exported nodes; anything else would fail the load
      // with FROM_OR_TO_VERTEX_ARE_MISSING.
      if (!isExportedArn(e.sourceArn) || !isExportedArn(e.destinationArn)) {
        progress.skippedEdges++;
        continue;
      }
      buf += csvRecord([edgeId(e), nodeId(e.sourceArn), nodeId(e.destinationArn), e.associationType]);
      progress.edges++;
    }
    if (buf.length >= CHUNK) {
      await out.write(buf);
      buf = '';
    }
    o.onProgress?.(progress);
  }
  await out.write(buf);
  await out.close();
  return { ...progress, files };
}
