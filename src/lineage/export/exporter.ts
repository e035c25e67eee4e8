// Exports lineage as Neptune bulk-load files: one node file per entity type and one edge file,
// streamed page by page from a LineageSource (no per-node calls, no graph held in memory).
// Gremlin CSV (the seed's names and columns, typed) or openCypher CSV, RFC 4180 quoted.
// https://docs.aws.amazon.com/neptune/latest/userguide/bulk-load-tutorial-format-gremlin.html
// https://docs.aws.amazon.com/neptune/latest/userguide/bulk-load-tutorial-format-opencypher.html
import * as crypto from 'node:crypto';
import { csvRecord } from '../../graph/csv/csv-writer.js';
import {
  EDGE_FILE,
  isExportedArn,
  type LineageEdge,
  type LineageNode,
  type LineageSource,
  NODE_FILES,
  type NodeFile,
} from './model.js';

export type { ExportFormat, RenderedLineage } from './model.js';
import type { ExportFormat, RenderedLineage } from './model.js';

/** Where files go: a directory or an s3:// prefix. Each file is written as a stream of chunks. */
export interface ExportOutput {
  /** Opens a file; write() resolves when the chunk (text, or UTF-8 bytes) is accepted (back-pressure). */
  open(name: string): Promise<{ write(chunk: string | Uint8Array): Promise<void>; close(): Promise<void> }>;
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

/** Node ≥ 20.12's one-shot digest: half the cost of a Hash object for a string this short. */
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'base64url') => string }).hash;

/** Edge ids: a short digest of both ends (an association is unique per source and destination). */
export function edgeId(e: LineageEdge): string {
  const text = `${e.sourceArn}\u0000${e.destinationArn}`;
  const digest = oneShot
    ? oneShot('sha1', text, 'base64url')
    : crypto.createHash('sha1').update(text).digest('base64url');
  return digest.slice(0, 16);
}

/** The day part of the last date written ("yyyy-MM-ddT") and the ms its day starts at. */
let lastDay = { start: Number.NaN, text: '' };
const DAY_MS = 86_400_000;
const two = (n: number) => (n < 10 ? `0${n}` : String(n));

/** Neptune's Date format without fractions (yyyy-MM-ddTHH:mm:ssZ), which every engine version reads. */
function date(d: Date | undefined): string | undefined {
  const t = d?.getTime();
  if (t === undefined || Number.isNaN(t)) return undefined;
  // a day's dates share their first 11 characters: toISOString once a day (lineage is written in runs)
  const start = t - (((t % DAY_MS) + DAY_MS) % DAY_MS);
  if (start !== lastDay.start) {
    const iso = d!.toISOString();
    // years beyond 9999 or before 0 (six digits and a sign): as they always were written
    if (iso.length !== 24) return `${iso.slice(0, 19)}Z`;
    lastDay = { start, text: iso.slice(0, 11) };
  }
  const s = Math.floor((t - start) / 1000);
  return `${lastDay.text}${two(Math.floor(s / 3600))}:${two(Math.floor(s / 60) % 60)}:${two(s % 60)}Z`;
}

/** A node file's header row. */
export function nodeHeader(f: NodeFile, format: ExportFormat): string {
  if (format === 'gremlin') return csvRecord(['~id', '~label', ...f.columns.map((c) => `${c.name}:${c.type}(single)`)]);
  return csvRecord([
    ':ID',
    ':LABEL',
    ...f.columns.map((c) => `${c.name}:${c.type === 'Date' ? 'DateTime' : 'String'}`),
  ]);
}

/** One node's row of its file. */
export function nodeRow(f: NodeFile, n: LineageNode): string {
  const row: (string | undefined)[] = [nodeId(n.arn), f.label];
  for (const c of f.columns) {
    const v = c.get(n);
    row.push(v instanceof Date ? date(v) : v);
  }
  return csvRecord(row);
}

const EDGE_HEADER: Record<ExportFormat, string> = {
  gremlin: csvRecord(['~id', '~from', '~to', '~label']),
  opencypher: csvRecord([':ID', ':START_ID', ':END_ID', ':TYPE']),
};

/** The edge file's header row. */
export const edgeHeader = (format: ExportFormat): string => EDGE_HEADER[format];

/**
 * The rows of these edges, counted into `progress`. The seed writes an edge only between exported
 * nodes; anything else would fail the load with FROM_OR_TO_VERTEX_ARE_MISSING.
 */
export function edgeRows(edges: readonly LineageEdge[], progress: ExportProgress): string {
  let buf = '';
  for (const e of edges) {
    if (!isExportedArn(e.sourceArn) || !isExportedArn(e.destinationArn)) {
      progress.skippedEdges++;
      continue;
    }
    buf += csvRecord([edgeId(e), nodeId(e.sourceArn), nodeId(e.destinationArn), e.associationType]);
    progress.edges++;
  }
  return buf;
}

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
  const rendered = o.source.rendered?.(o.format);
  if (rendered) {
    try {
      // every node file at once: one pass over the entities fills all four
      const outs = [];
      for (const f of NODE_FILES) {
        const out = await o.output.open(f.file);
        files.push(f.file);
        await out.write(nodeHeader(f, o.format));
        outs.push(out);
      }
      for await (const block of rendered.nodes()) {
        for (let i = 0; i < outs.length; i++) if (block.texts[i]!.length > 0) await outs[i]!.write(block.texts[i]!);
        progress.nodes += block.nodes;
        o.onProgress?.(progress);
      }
      for (const out of outs) await out.close();
      const out = await o.output.open(EDGE_FILE);
      files.push(EDGE_FILE);
      await out.write(edgeHeader(o.format));
      for await (const block of rendered.edges()) {
        await out.write(block.text);
        progress.edges += block.edges;
        progress.skippedEdges += block.skipped;
        o.onProgress?.(progress);
      }
      await out.close();
      return { ...progress, files };
    } finally {
      await rendered.close();
    }
  }
  for (const f of NODE_FILES) {
    const out = await o.output.open(f.file);
    files.push(f.file);
    let buf = nodeHeader(f, o.format);
    for await (const page of o.source.nodes(f.kind)) {
      for (const n of page) {
        buf += nodeRow(f, n);
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
  let buf = edgeHeader(o.format);
  for await (const page of o.source.edges()) {
    buf += edgeRows(page, progress);
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
