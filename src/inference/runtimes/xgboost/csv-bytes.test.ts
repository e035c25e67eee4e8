import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { abaloneCsv } from '../../../../test/support/abalone.js';
import {
  decodeCsvBytes,
  decodeCsvText,
  decodeRequest,
  encodeLines,
  encodeResponse,
  parseContainerVersion,
  type Scratch,
  XGBoostServingError,
} from './index.js';

const V17 = parseContainerVersion('sagemaker-xgboost:1.7-1-cpu-py3')!;
const enc = (s: string) => new TextEncoder().encode(s);
const strip = (s: string) => s.replace(/^[ \t\n\r\v\f]+|[ \t\n\r\v\f]+$/g, '');
const bits = (a: Float32Array) => Array.from(new Uint32Array(a.buffer, a.byteOffset, a.length));

/** A deterministic generator (tests must not depend on luck). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

/** The text route's answer, or its error message. */
function textRoute(body: string, nf: number): Float32Array | string {
  try {
    const d = decodeCsvText(strip(body), nf);
    return d.rows;
  } catch (e) {
    return (e as Error).message;
  }
}

function plainCell(r: () => number): string {
  const kind = r();
  if (kind < 0.08) return '';
  const digits = (n: number) => Array.from({ length: n }, () => String(Math.floor(r() * 10))).join('');
  const sign = r() < 0.3 ? '-' : '';
  if (kind < 0.15) return `${sign}${digits(1 + Math.floor(r() * 25))}`; // long integers (> 15 digits too)
  if (kind < 0.22) return `${sign}0.${'0'.repeat(Math.floor(r() * 30))}${digits(1 + Math.floor(r() * 6))}`; // > 22 fraction digits too
  if (kind < 0.27) return `${sign}${digits(1 + Math.floor(r() * 3))}.`; // "5."
  if (kind < 0.32) return `${sign}.${digits(1 + Math.floor(r() * 8))}`; // ".5"
  if (kind < 0.36) return `${sign}0.0`; // zeros and -0
  return `${sign}${digits(1 + Math.floor(r() * 3))}.${digits(1 + Math.floor(r() * 12))}`;
}

describe('decodeCsvBytes: CSV bytes straight into float32 rows', () => {
  test('the abalone rows decode bit-identically to the text route', () => {
    const body = `${abaloneCsv()
      .trim()
      .split('\n')
      .map((l) => l.split(',').slice(1).join(','))
      .join('\n')}\n`;
    const fast = decodeCsvBytes(enc(body), 8);
    assert.ok(fast, 'abalone rows are plain CSV');
    const slow = textRoute(body, 8);
    assert.ok(slow instanceof Float32Array);
    assert.equal(fast.nRows, 4177);
    assert.deepEqual(bits(fast.rows), bits(slow));
  });

  test('random plain decimals, empty cells and short rows: every value bit-identical', () => {
    const r = rng(16);
    let compared = 0;
    for (let trial = 0; trial < 300; trial++) {
      const nf = 1 + Math.floor(r() * 9);
      const cols = nf > 1 && r() < 0.2 ? nf - 1 : nf; // the container takes one feature fewer too
      const rows = 1 + Math.floor(r() * 30);
      const lines = Array.from({ length: rows }, () => Array.from({ length: cols }, () => plainCell(r)).join(','));
      // An empty first row is refused by both routes alike; keep some in later rows (one empty cell).
      const body = `${lines.join('\n')}${'\n'.repeat(Math.floor(r() * 3))}`;
      const slow = textRoute(body, nf);
      const fast = decodeCsvBytes(enc(body), nf);
      if (!(slow instanceof Float32Array)) {
        assert.equal(fast, undefined, `${JSON.stringify(body)}: the text route refuses it (${slow})`);
        continue;
      }
      if (strip(body) !== body.replace(/\n+$/, '')) continue; // leading newlines: the text route's
      assert.ok(fast, `plain body not taken: ${JSON.stringify(body)}`);
      assert.equal(fast.nRows, slow.length / nf);
      assert.deepEqual(bits(fast.rows), bits(slow), JSON.stringify(body));
      compared++;
    }
    assert.ok(compared > 150, `only ${compared} bodies compared`);
  });

  test('anything else falls back to the text route, which answers as before', () => {
    const r = rng(7);
    let taken = 0;
    let refused = 0;
    const alphabet = ['0', '1', '9', '.', '-', ',', '\n', '\r', ' ', 'e', '+', 'x', '\t', '5', '7'];
    for (let trial = 0; trial < 2000; trial++) {
      const nf = 1 + Math.floor(r() * 4);
      const body = Array.from(
        { length: 1 + Math.floor(r() * 24) },
        () => alphabet[Math.floor(r() * alphabet.length)],
      ).join('');
      const fast = decodeCsvBytes(enc(body), nf);
      const slow = textRoute(body, nf);
      if (fast) {
        assert.ok(
          slow instanceof Float32Array,
          `${JSON.stringify(body)}: fast took what the text route refuses (${slow})`,
        );
        assert.deepEqual(bits(fast.rows), bits(slow), JSON.stringify(body));
        taken++;
      }
      // decodeRequest (fast route first) answers exactly what the text route does.
      let got: Float32Array | string;
      try {
        got = decodeRequest(enc(body), 'text/csv', V17, nf).rows;
      } catch (e) {
        assert.ok(e instanceof XGBoostServingError);
        got = e.message;
      }
      if (strip(body) === '') continue; // refused before either route
      if (typeof slow === 'string') {
        assert.equal(got, slow, JSON.stringify(body));
        refused++;
      } else assert.deepEqual(bits(got as Float32Array), bits(slow), JSON.stringify(body));
    }
    assert.ok(taken > 20 && refused > 500, `taken ${taken}, refused ${refused}`);
  });

  test('declines what it does not read itself', () => {
    for (const body of [
      '\n1,2',
      ' 1,2',
      '1,2\r\n',
      '1e3,2',
      '+1,2',
      '1,2 ',
      '1,nan',
      '1,-',
      '1,.',
      '1,1.2.3',
      '1,2\n3',
      '1,2,3',
    ]) {
      assert.equal(decodeCsvBytes(enc(body), 2), undefined, JSON.stringify(body));
    }
    const d = decodeCsvBytes(enc('1,,-0\n.5,5.,-.25\n\n'), 3)!;
    assert.equal(d.nRows, 2);
    assert.deepEqual(Array.from(d.rows), [1, Number.NaN, -0, 0.5, 5, -0.25]);
    assert.ok(Object.is(d.rows[2], -0));
    // one feature fewer than the model: the last one is missing
    assert.deepEqual(Array.from(decodeCsvBytes(enc('1,2'), 3)!.rows), [1, 2, Number.NaN]);
  });

  test('many rows outgrow the first guess of their number', () => {
    const body = `123456789.123,1\n${'1,2\n'.repeat(5000)}`;
    const d = decodeCsvBytes(enc(body), 2)!;
    assert.equal(d.nRows, 5001);
    assert.deepEqual(bits(d.rows), bits(textRoute(body, 2) as Float32Array));
  });
});

describe('a scratch lent for one request at a time', () => {
  test('rows and answer bytes reuse its memory and come out the same', () => {
    const scratch: Scratch = {};
    const big = `${'1.5,2,3\n'.repeat(1000)}`;
    const first = decodeCsvBytes(enc(big), 3, scratch)!;
    assert.equal(first.rows.buffer, scratch.rows!.buffer);
    assert.deepEqual(bits(first.rows), bits(decodeCsvBytes(enc(big), 3)!.rows));
    const small = decodeCsvBytes(enc('4,5,6\n7,,9'), 3, scratch)!;
    assert.equal(small.rows.buffer, scratch.rows!.buffer, 'the larger memory is reused');
    assert.deepEqual(Array.from(small.rows), [4, 5, 6, 7, Number.NaN, 9]);
    // Growing past the first guess keeps the rows read so far.
    const grown = decodeCsvBytes(enc(`1,1,1\n${'2,2,2\n'.repeat(3000)}`), 3, {})!;
    assert.equal(grown.nRows, 3001);
    assert.deepEqual(Array.from(grown.rows.subarray(0, 6)), [1, 1, 1, 2, 2, 2]);
    const preds = Float32Array.from([0.5, 1e-7, 12.25]);
    const a = encodeLines(preds, scratch);
    const b = encodeLines(Float32Array.from([3]), scratch);
    assert.equal(new TextDecoder().decode(a), '0.5\n1.0000000116860974e-07\n12.25\n');
    assert.equal(new TextDecoder().decode(b), '3.0\n');
    assert.notEqual(a.buffer, scratch.bytes!.buffer, 'answers own their memory (a thread hands them over)');
  });
});

describe('encodeLines', () => {
  test('writes what encodeResponse writes for batch transform', () => {
    const r = rng(3);
    const values = [
      0,
      -0,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
      1e-5,
      3.4028234663852886e38,
      1e16,
      123456789,
    ];
    for (let i = 0; i < 5000; i++) values.push((r() - 0.5) * 10 ** Math.floor(r() * 40 - 20));
    const preds = Float32Array.from(values);
    const want = encodeResponse(preds, undefined, V17, { batch: true }).body;
    assert.equal(new TextDecoder().decode(encodeLines(preds)), want);
    assert.equal(encodeLines(new Float32Array(0)).length, 0);
  });
});
