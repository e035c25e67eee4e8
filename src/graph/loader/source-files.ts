// Reads the files of a load source through the BlobStore: lists the s3:// prefix, opens each
// object as decoded text (gunzipping .gz files), and reads just the header row to classify a file.
// https://docs.aws.amazon.com/neptune/latest/userguide/bulk-load-tutorial-format.html
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { BlobInfo, BlobStore } from '../../storage/blobs/blob-store.js';
import { type CsvField, CsvParser } from '../csv/csv-parser.js';

export interface SourceFile {
  readonly uri: string;
  readonly size: number;
  readonly etag: string;
}

/** Every object under the prefix that could hold data (folders and empty objects are skipped). */
export async function listSource(blobs: BlobStore, source: string): Promise<SourceFile[]> {
  const out: SourceFile[] = [];
  for await (const b of blobs.list(source) as AsyncIterable<BlobInfo>) {
    if (b.key.endsWith('/') || b.size === 0) continue;
    out.push({ uri: `s3://${b.bucket}/${b.key}`, size: b.size, etag: b.etag });
  }
  return out;
}

/** The object's text, chunk by chunk (UTF-8, BOM dropped). */
export async function* readText(blobs: BlobStore, uri: string): AsyncGenerator<string> {
  const raw = await blobs.get(uri);
  const stream: Readable = /\.gz$/i.test(uri) ? raw.pipe(createGunzip()) : raw;
  stream.setEncoding('utf8');
  let first = true;
  try {
    for await (const chunk of stream as AsyncIterable<string>) {
      if (first) {
        first = false;
        yield chunk.charCodeAt(0) === 0xfeff ? chunk.slice(1) : chunk;
      } else {
        yield chunk;
      }
    }
  } finally {
    raw.destroy();
    stream.destroy();
  }
}

/** The first record of a file (its header), or undefined for a file without one. */
export async function readHeader(blobs: BlobStore, uri: string): Promise<CsvField[] | undefined> {
  let header: CsvField[] | undefined;
  let error: string | undefined;
  const parser = new CsvParser({
    record: (fields) => {
      header ??= fields;
    },
    error: (message) => {
      error ??= message;
    },
  });
  for await (const chunk of readText(blobs, uri)) {
    parser.write(chunk);
    if (header || error) break;
  }
  if (!header && !error) parser.end();
  if (!header && error) throw new Error(error);
  return header;
}
