// readChannel builds the matrix xgboost builds from the same channel (fixtures recorded with real
// xgboost 1.7.4 by scripts/fixtures/xgboost-train/generate_inputs.py), streaming through any chunking
// and gzip, and refuses what the SageMaker XGBoost container refuses, naming the file and line.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { parseThreads } from '../parse-threads.js';
import type { DMatrix } from '../types.js';
import { parseDmlcFloat } from './dmlc-float.js';
import { TrainingInputError } from './errors.js';
import { type ChannelFile, type ReadChannelOptions, readChannel } from './read-channel.js';

const INPUT = resolve(process.cwd(), 'test', 'fixtures', 'xgboost-train', 'io', 'input');

/** A file served in chunks of `chunk` bytes, as an S3 body stream would arrive. */
function file(name: string, content: string | Uint8Array, chunk = 64 * 1024): ChannelFile {
  const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : content;
  return {
    name,
    async open() {
      return (async function* () {
        for (let i = 0; i < bytes.length; i += chunk) yield bytes.subarray(i, i + chunk);
      })();
    },
  };
}

function rowsOf(m: DMatrix): (number | null)[][] {
  const out: (number | null)[][] = [];
  for (let r = 0; r < m.numRows; r++) {
    out.push(Array.from(m.data.subarray(r * m.numCols, (r + 1) * m.numCols), (v) => (Number.isNaN(v) ? null : v)));
  }
  return out;
}

async function rejects(files: ChannelFile[], options: ReadChannelOptions, pattern: RegExp, where?: [string, number]) {
  await assert.rejects(readChannel(files, options), (e: unknown) => {
    assert.ok(e instanceof TrainingInputError, String(e));
    assert.match(e.message, pattern);
    if (where) assert.deepEqual([e.file, e.line], where);
    return true;
  });
}

describe('readChannel matches xgboost 1.7.4', () => {
  for (const name of readdirSync(INPUT)) {
    const dir = join(INPUT, name);
    const expected = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8'));
    const bytes = (f: string): Uint8Array => new Uint8Array(readFileSync(join(dir, f)));
    const options = { contentType: expected.contentType, csvWeights: expected.csvWeights };
    const check = (m: DMatrix): void => {
      assert.equal(m.numRows, expected.numRows);
      assert.equal(m.numCols, expected.numCols);
      assert.deepEqual(Array.from(m.labels), expected.labels);
      assert.deepEqual(m.weights ? Array.from(m.weights) : [], expected.weights);
      assert.deepEqual(rowsOf(m), expected.rows);
    };

    test(`${name}: same rows, labels, weights and missing values`, async () => {
      check(
        await readChannel(
          expected.files.map((f: string) => file(f, bytes(f))),
          options,
        ),
      );
    });

    test(`${name}: the same from 1- to 7-byte chunks and from gzip`, async () => {
      for (const chunk of [1, 2, 3, 7])
        check(
          await readChannel(
            expected.files.map((f: string) => file(f, bytes(f), chunk)),
            options,
          ),
        );
      check(
        await readChannel(
          expected.files.map((f: string) => file(`${f}.gz`, gzipSync(bytes(f)), 5)),
          options,
        ),
      );
      check(
        await readChannel(
          expected.files.map((f: string) => file(f, gzipSync(bytes(f)))),
          { ...options, compression: 'Gzip' },
        ),
      );
    });
  }
});

describe('CSV', () => {
  test('empty cells and nan are missing; a row may be shorter; the width is the last non-empty cell', async () => {
    const m = await readChannel([file('a.csv', '1,2,,4\n0,nan,5\n1,,,\n\n2,1e3,-0.5,7,8,\n')], {
      contentType: 'text/csv',
    });
    assert.equal(m.numCols, 4);
    assert.deepEqual(Array.from(m.labels), [1, 0, 1, 2]);
    assert.deepEqual(rowsOf(m), [
      [2, null, 4, null],
      [null, 5, null, null],
      [null, null, null, null],
      [1000, -0.5, 7, 8],
    ]);
  });

  test('the delimiter is sniffed from the first line of the first file, as csv.Sniffer does', async () => {
    for (const [text, width] of [
      ['1\t2\t3\n0\t4\t5\n', 2],
      ['1;2;3\n', 2],
      ['1 2 3\n', 2],
      ['1|2|3\n', 2],
      ['1:2:3\n', 2],
    ] as const) {
      assert.equal((await readChannel([file('a', text)], { contentType: 'csv' })).numCols, width, JSON.stringify(text));
    }
  });

  test('a header row is refused with the file and line, not trained on as zeros', async () => {
    await rejects([file('train/data.csv', 'label,age,income\n1,2,3\n')], { contentType: 'text/csv' }, /header/, [
      'train/data.csv',
      1,
    ]);
  });

  test('a malformed cell names the file and line', async () => {
    await rejects(
      [file('part-1.csv', '1,2,3\n'), file('part-2.csv', '0,1,2\n1,2,3\n1,abc,3\n')],
      { contentType: 'text/csv' },
      /part-2\.csv, line 3: column 2 holds "abc"/,
      ['part-2.csv', 3],
    );
    await rejects([file('a.csv', '1,2,3\n0,inf,1\n')], { contentType: 'text/csv' }, /infinite/, ['a.csv', 2]);
    await rejects([file('a.csv', '1,2,3\n,1,1\n')], { contentType: 'text/csv' }, /label .* is missing/, ['a.csv', 2]);
  });

  test('csv_weights=1 takes the second column as the instance weight', async () => {
    const m = await readChannel([file('w.csv', '1,0.5,7,8\n0,2,9,\n')], { contentType: 'text/csv', csvWeights: true });
    assert.deepEqual(Array.from(m.weights ?? []), [0.5, 2]);
    assert.deepEqual(rowsOf(m), [
      [7, 8],
      [9, null],
    ]);
    await rejects([file('w.csv', '1,,7\n')], { contentType: 'text/csv', csvWeights: true }, /weight .* is missing/);
  });

  test('a one-column first line cannot give a delimiter; an empty CSV file fails as in the container', async () => {
    await rejects([file('a.csv', '1\n0\n')], { contentType: 'text/csv' }, /single column/);
    await rejects(
      [file('a.csv', '1,2\n'), file('b.csv', '')],
      { contentType: 'text/csv' },
      /Could not determine delimiter/,
    );
    await rejects([file('a.csv', '\n1,2\n')], { contentType: 'text/csv' }, /Could not determine delimiter/);
  });

  test('a UTF-8 byte order mark and CRLF line ends are accepted', async () => {
    const m = await readChannel([file('a.csv', '\ufeff1,2,3\r\n0,4,5\r\n', 1)], { contentType: 'text/csv' });
    assert.deepEqual(rowsOf(m), [
      [2, 3],
      [4, 5],
    ]);
  });
});

describe('libsvm', () => {
  test('indices are 0-based columns; label:weight; qid and comments are skipped; nan is missing', async () => {
    const text = '1:0.5 qid:3 1:2 3:4 # trailing comment\n# whole-line comment\n\n0:2 0:1e-3 2:nan\n';
    const m = await readChannel([file('a.libsvm', text)], { contentType: 'text/x-libsvm' });
    assert.equal(m.numCols, 4);
    assert.deepEqual(Array.from(m.labels), [1, 0]);
    assert.deepEqual(Array.from(m.weights ?? []), [0.5, 2]);
    assert.deepEqual(rowsOf(m), [
      [null, 2, null, 4],
      [Math.fround(1e-3), null, null, null],
    ]);
  });

  test('no ContentType means libsvm, as the container defaults the channel to text/libsvm', async () => {
    assert.equal((await readChannel([file('a', '1 0:1\n')])).numCols, 1);
  });

  test('malformed rows name the file and line', async () => {
    const ct = { contentType: 'libsvm' };
    await rejects([file('a', '1 0:1\n0 x:2\n')], ct, /a, line 2: "x:2" is not <index>:<value>/, ['a', 2]);
    await rejects([file('a', '1 0:1\nabc 1:2\n')], ct, /label "abc"/, ['a', 2]);
    await rejects([file('a', '1 2:1 0:3 2:5\n')], ct, /appears twice/, ['a', 1]);
    await rejects([file('a', '1:1 0:1\n0 1:2\n')], ct, /no instance weight but earlier rows have one/, ['a', 2]);
    await rejects([file('a', '1 -1:2\n')], ct, /not <index>:<value>/);
  });
});

describe('channels', () => {
  test('content types: the container aliases are accepted, the rest refused in its words', async () => {
    for (const ct of ['csv', 'text/csv', 'text/csv;label_size=1', 'TEXT/CSV; charset=utf-8']) {
      assert.equal((await readChannel([file('a', '1,2\n')], { contentType: ct })).numCols, 1, ct);
    }
    for (const ct of ['libsvm', 'text/libsvm', 'text/x-libsvm', 'text/libsvm ;charset=utf8']) {
      assert.equal((await readChannel([file('a', '1 0:2\n')], { contentType: ct })).numCols, 1, ct);
    }
    await rejects(
      [file('a', '1,2\n')],
      { contentType: 'text/csv;label_size=2' },
      /^text\/csv;label_size=2 is not an accepted csv ContentType\. Optional parameter label_size must be equal to 1$/,
    );
    await rejects(
      [file('a', '1,2\n')],
      { contentType: 'application/json' },
      /^application\/json is not an accepted ContentType: csv, libsvm, parquet, recordio-protobuf, text\/csv/,
    );
    await rejects([file('a', '1,2\n')], { contentType: 'application/x-parquet' }, /not supported by this trainer/);
  });

  test("an empty channel and a channel without rows fail with the container's messages", async () => {
    await rejects([], { contentType: 'csv' }, /^No data in training channel path$/);
    await rejects([file('a', '')], { channel: 'validation' }, /^No data in validation channel path$/);
    await rejects([file('a', '\n\n# nothing\n')], {}, /^Got input data without labels/);
  });

  test('validation: fewer features are padded as missing, more are refused', async () => {
    const train = await readChannel([file('t', '1,2,3,4\n')], { contentType: 'csv' });
    const val = await readChannel([file('v', '1,2\n')], {
      contentType: 'csv',
      channel: 'validation',
      trainColumns: train.numCols,
    });
    assert.deepEqual(rowsOf(val), [[2, null, null]]);
    const sparse = await readChannel([file('v', '1 0:2\n')], { channel: 'validation', trainColumns: 3 });
    assert.deepEqual(rowsOf(sparse), [[2, null, null]]);
    await rejects(
      [file('v', '1,2,3,4,5\n')],
      { contentType: 'csv', channel: 'validation', trainColumns: 3 },
      /validation channel has 4 features and the training channel 3\. Number of columns does not match number of features in booster\./,
    );
  });

  test('CompressionType Gzip on a file that is not gzip is refused; corrupt gzip names the file', async () => {
    await rejects(
      [file('a.csv', '1,2\n')],
      { contentType: 'csv', compression: 'Gzip' },
      /a\.csv: .*not gzip-compressed/,
    );
    const gz = gzipSync(new TextEncoder().encode('1,2\n'.repeat(100)));
    await rejects(
      [file('b.csv.gz', gz.subarray(0, gz.length - 10))],
      { contentType: 'csv' },
      /b\.csv\.gz: gzip data is corrupt/,
    );
  });

  test('a large channel streams in chunks into one matrix of the right size', async () => {
    const line = '1,0.25,,3.5,nan,-7\n';
    const m = await readChannel([file('big.csv', line.repeat(200_000), 65_536)], { contentType: 'csv' });
    assert.equal(m.numRows, 200_000);
    assert.equal(m.data.length, 200_000 * 5);
    assert.deepEqual(rowsOf({ ...m, numRows: 1 }), [[0.25, null, 3.5, null, -7]]);
    assert.deepEqual(
      Array.from(m.data.subarray(m.data.length - 5)).map((v) => (Number.isNaN(v) ? null : v)),
      [0.25, null, 3.5, null, -7],
    );
  });
});

describe('blocks parsed on threads', () => {
  // Tiny blocks, so a fixture spans many, parsed on two histogram threads straight into the matrix.
  const threads = parseThreads(2);
  after(() => threads.close());
  const onThreads = { threads, blockBytes: 64 };

  test('every fixture gives the same matrix as one thread reading it', async () => {
    for (const name of readdirSync(INPUT)) {
      const dir = join(INPUT, name);
      const expected = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8'));
      const files = () => expected.files.map((f: string) => file(f, new Uint8Array(readFileSync(join(dir, f))), 5));
      const options = { contentType: expected.contentType, csvWeights: expected.csvWeights };
      const one = await readChannel(files(), options);
      const many = await readChannel(files(), { ...options, ...onThreads });
      assert.equal(many.numCols, one.numCols, name);
      assert.deepEqual(rowsOf(many), rowsOf(one), name);
      assert.deepEqual(Array.from(many.labels), Array.from(one.labels), name);
      assert.deepEqual(many.weights && Array.from(many.weights), one.weights && Array.from(one.weights), name);
    }
  });

  test('rows wider than the blocks before them, blank lines and CRLF keep their places', async () => {
    const lines: string[] = [];
    for (let r = 0; r < 400; r++) {
      const width = r < 100 ? 2 : r < 300 ? 2 + (r % 3) : 6;
      lines.push(
        r % 37 === 5
          ? ''
          : `${r},${Array.from({ length: width }, (_, c) => (c === 1 && r % 5 === 0 ? '' : `${r}.${c}`)).join(',')}${r % 7 === 0 ? '\r' : ''}`,
      );
    }
    const text = lines.join('\n');
    const one = await readChannel([file('w.csv', text)], { contentType: 'csv' });
    const many = await readChannel([file('w.csv', text, 13)], { contentType: 'csv', ...onThreads });
    assert.equal(one.numCols, 6);
    assert.equal(many.numRows, one.numRows);
    assert.deepEqual(rowsOf(many), rowsOf(one));
    assert.deepEqual(Array.from(many.labels), Array.from(one.labels));
  });

  test('the first error in the channel is reported, wherever the threads met errors', async () => {
    const good = Array.from({ length: 300 }, (_, r) => `${r % 2},${r},${r / 4}`);
    const bad = [...good];
    bad[250] = '1,2,x';
    bad[120] = '1,oops,3';
    await rejects(
      [file('a.csv', good.join('\n')), file('b.csv', bad.join('\n'))],
      { contentType: 'csv', ...onThreads },
      /b\.csv, line 121: column 2 holds "oops"/,
      ['b.csv', 121],
    );
    // a later file that cannot be sniffed fails only after the earlier files' rows
    await rejects(
      [file('a.csv', bad.join('\n')), file('b.csv', '\n1,2\n')],
      { contentType: 'csv', ...onThreads },
      /a\.csv, line 121/,
    );
    const weighted = Array.from({ length: 300 }, (_, r) => `${r % 2}:0.5 0:${r} 3:${r / 4}`);
    weighted[200] = '1 0:1';
    await rejects(
      [file('w.libsvm', weighted.join('\n'))],
      { contentType: 'libsvm', ...onThreads },
      /w\.libsvm, line 201: this row has no instance weight but earlier rows have one/,
      ['w.libsvm', 201],
    );
    const unweighted = weighted.map((l, i) => (i < 150 ? l.replace(':0.5', '') : l));
    await rejects(
      [file('w.libsvm', unweighted.join('\n'))],
      { contentType: 'libsvm', ...onThreads },
      /w\.libsvm, line 151: this row has an instance weight but earlier rows have none/,
    );
  });
});

describe('the WebAssembly kernel for plain rows', () => {
  test('reads what parseDmlcFloat reads, and leaves every other line to the reader', async () => {
    let s = 99;
    const rnd = () => {
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      return s / 2 ** 32;
    };
    const digitsOf = (n: number) => Array.from({ length: n }, () => Math.floor(rnd() * 10)).join('');
    const cell = (): string => {
      const r = rnd();
      if (r < 0.7)
        return `${rnd() < 0.3 ? '-' : ''}${digitsOf(1 + Math.floor(rnd() * 3))}.${digitsOf(Math.floor(rnd() * 8))}`;
      if (r < 0.75) return `${digitsOf(14 + Math.floor(rnd() * 4))}.${digitsOf(14 + Math.floor(rnd() * 4))}`;
      if (r < 0.78) return `+.${digitsOf(3)}`;
      if (r < 0.8) return `${digitsOf(2)}.`;
      if (r < 0.83) return `${digitsOf(1)}.${digitsOf(2)}e${rnd() < 0.5 ? '-' : ''}${digitsOf(1)}`;
      if (r < 0.85) return '';
      if (r < 0.87) return 'nan';
      if (r < 0.89) return ` ${digitsOf(2)}`;
      return digitsOf(1 + Math.floor(rnd() * 6));
    };
    const lines: string[] = [];
    const expected: (number | null)[][] = [];
    const labels: number[] = [];
    const enc = new TextEncoder();
    const num = (t: string) => parseDmlcFloat(enc.encode(t), 0, enc.encode(t).length);
    for (let r = 0; r < 4000; r++) {
      const cells = Array.from({ length: 6 }, cell);
      const label = `${digitsOf(1)}.${digitsOf(3)}`;
      lines.push(`${label},${cells.join(',')}${rnd() < 0.05 ? '\r' : ''}`);
      labels.push(num(label) as number);
      expected.push(
        cells.map((c) => {
          const v = c.trim() === '' ? undefined : num(c);
          return v === undefined || Number.isNaN(v) ? null : v;
        }),
      );
    }
    const text = lines.join('\n');
    for (const options of [{}, { blockBytes: 8192 }, { threads: parseThreads(2), blockBytes: 8192 }]) {
      const m = await readChannel([file('k.csv', text, 1000)], { contentType: 'csv', ...options });
      options.threads?.close();
      assert.equal(m.numCols, 6);
      assert.deepEqual(Array.from(m.labels), labels);
      assert.deepEqual(rowsOf(m), expected);
    }
  });
});
