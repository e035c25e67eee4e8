// Trainer input bench: reads a large CSV channel (plain and gzip) into the trainer's DMatrix and
// reports time and peak RSS, next to xgboost 1.7.4 building its DMatrix from the same file the way
// the SageMaker container asks it to (`path?format=csv&label_column=0&delimiter=,`), measured in
// the same run (Debian python3-xgboost; XGB_PYTHON chooses the interpreter).
//
//   npm run build && node dist/bench/xgboost-train/input.js [--mb 512]
//
// Each reader runs in its own process so the peak RSS is the reader's alone.

import { execFileSync } from 'node:child_process';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { createGzip } from 'node:zlib';
import { readChannel } from '../../src/training/xgboost/input/index.js';

const FEATURES = 20;

async function child(path: string): Promise<void> {
  const base = process.memoryUsage().rss;
  const t0 = performance.now();
  const m = await readChannel([{ name: path, open: async () => createReadStream(path, { highWaterMark: 1 << 20 }) }], {
    contentType: 'text/csv',
  });
  const ms = performance.now() - t0;
  const maxRss = process.resourceUsage().maxRSS * 1024;
  process.stdout.write(
    JSON.stringify({ ms, maxRss, baseRss: base, rows: m.numRows, cols: m.numCols, bytes: m.data.byteLength }),
  );
}

function writeCsv(path: string, mb: number): Promise<void> {
  let a = 42;
  const rnd = (): number => {
    // mulberry32: enough entropy that gzip compresses like real numeric data
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = createWriteStream(path);
  let written = 0;
  const target = mb * 1024 * 1024;
  return new Promise((resolve, reject) => {
    out.on('error', reject);
    const more = (): void => {
      while (written < target) {
        const lines: string[] = [];
        for (let i = 0; i < 1000; i++) {
          const cells = [String(rnd() < 0.5 ? 0 : 1)];
          for (let f = 0; f < FEATURES; f++)
            cells.push(rnd() < 0.1 ? '' : ((rnd() - 0.5) * 200).toFixed(1 + Math.floor(rnd() * 6)));
          lines.push(cells.join(','));
        }
        const chunk = `${lines.join('\n')}\n`;
        written += chunk.length;
        if (!out.write(chunk)) {
          out.once('drain', more);
          return;
        }
      }
      out.end(resolve);
    };
    more();
  });
}

const XGB = `
import resource, sys, time, xgboost as xgb
t0 = time.perf_counter()
m = xgb.DMatrix(sys.argv[1] + "?format=csv&label_column=0&delimiter=,", nthread=int(sys.argv[2]))
ms = (time.perf_counter() - t0) * 1000
print(ms, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, m.num_row(), m.num_col())
`;

async function main(): Promise<void> {
  const arg = process.argv.indexOf('--child');
  if (arg >= 0) return child(process.argv[arg + 1]);
  const mbAt = process.argv.indexOf('--mb');
  const mb = mbAt >= 0 ? Number(process.argv[mbAt + 1]) : 512;
  const dir = mkdtempSync(join(tmpdir(), 'xgb-input-bench-'));
  const self = fileURLToPath(import.meta.url);
  try {
    const csv = join(dir, 'train.csv');
    await writeCsv(csv, mb);
    const gz = join(dir, 'train.csv.gz');
    await pipeline(createReadStream(csv), createGzip({ level: 6 }), createWriteStream(gz));
    const size = statSync(csv).size;
    console.log(
      `CSV: ${(size / 2 ** 20).toFixed(0)} MiB, ${FEATURES} features, 10% empty cells; gzip ${(statSync(gz).size / 2 ** 20).toFixed(0)} MiB`,
    );
    const mib = (b: number): string => `${(b / 2 ** 20).toFixed(0)} MiB`;
    for (const [label, path] of [
      ['csv', csv],
      ['csv.gz', gz],
    ]) {
      const r = JSON.parse(execFileSync(process.execPath, [self, '--child', path], { maxBuffer: 1 << 20 }).toString());
      console.log(
        `slipway readChannel ${label}: ${(r.ms / 1000).toFixed(2)} s (${((size / 2 ** 20 / r.ms) * 1000).toFixed(0)} MiB/s of CSV), ` +
          `${r.rows} rows × ${r.cols}, matrix ${mib(r.bytes)}, peak RSS ${mib(r.maxRss)} (process at start ${mib(r.baseRss)})`,
      );
    }
    const py = process.env.XGB_PYTHON ?? '/usr/bin/python3';
    for (const threads of [1, 2]) {
      try {
        const [ms, rss, rows, cols] = execFileSync(py, ['-c', XGB, csv, String(threads)], {
          stdio: ['ignore', 'pipe', 'ignore'],
        })
          .toString()
          .trim()
          .split(' ')
          .map(Number);
        console.log(
          `xgboost ${threads} thread(s) DMatrix(csv): ${(ms / 1000).toFixed(2)} s (${((size / 2 ** 20 / ms) * 1000).toFixed(0)} MiB/s), ${rows} rows × ${cols}, peak RSS ${mib(rss)}`,
        );
      } catch (e) {
        console.log(`xgboost reference not run: ${(e as Error).message.split('\n')[0]}`);
        break;
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
