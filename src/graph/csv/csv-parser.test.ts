import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CsvParser, type CsvField, parseCsvText } from './csv-parser.js';
import { csvRecord } from './csv-writer.js';
import { splitArray } from './headers.js';

describe('CSV parser (RFC 4180)', () => {
  it('splits records and fields, with blank fields as null and "" as the empty string', () => {
    const { records, errors } = parseCsvText('a,b,c\n1,,""\r\n2,x,y');
    assert.deepEqual(errors, []);
    assert.deepEqual(records, [
      { fields: ['a', 'b', 'c'], line: 1 },
      { fields: ['1', null, ''], line: 2 },
      { fields: ['2', 'x', 'y'], line: 3 },
    ]);
  });

  it('reads quoted commas, doubled quotes and line breaks, and counts lines inside quotes', () => {
    const { records } = parseCsvText('id,msg\n1,"a, ""quoted""\nsecond line"\n2,after\n');
    assert.deepEqual(records[1], { fields: ['1', 'a, "quoted"\nsecond line'], line: 2 });
    assert.deepEqual(records[2], { fields: ['2', 'after'], line: 4 });
  });

  it('gives the same records whatever the chunk boundaries', () => {
    const text = 'x,"y ""z""",\n"multi\r\nline",2,3\r\nlast,"",end';
    const whole = parseCsvText(text).records;
    for (let size = 1; size <= 5; size++) {
      const got: { fields: CsvField[]; line: number }[] = [];
      const p = new CsvParser({
        record: (fields, line) => got.push({ fields, line }),
        error: () => assert.fail('no error expected'),
      });
      for (let i = 0; i < text.length; i += size) p.write(text.slice(i, i + size));
      p.end();
      assert.deepEqual(got, whole, `chunk size ${size}`);
    }
  });

  it('cuts plain lines as the character loop does, around quotes, CR, CRLF, blank lines and chunk ends', () => {
    // Lines without quotes are cut with indexOf; one character at a time only the character loop
    // runs (a chunk of one character holds no whole line), so that is the reference.
    const parse = (text: string, cut: (i: number) => number) => {
      const out: unknown[] = [];
      const p = new CsvParser({
        record: (fields, line) => out.push(['record', fields, line]),
        error: (message, line) => out.push(['error', message, line]),
      });
      for (let i = 0; i < text.length; ) {
        const next = Math.min(text.length, i + cut(i));
        p.write(text.slice(i, next));
        i = next;
      }
      p.end();
      return out;
    };
    let seed = 7;
    const random = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 8) % n;
    };
    const alphabet = ['a', 'b', ',', ',', '"', '\n', '\n', '\r', '\r\n', 'é', ' ', 'xyz'];
    for (let round = 0; round < 2000; round++) {
      let text = '';
      const len = random(60);
      for (let k = 0; k < len; k++) text += alphabet[random(alphabet.length)];
      const reference = parse(text, () => 1);
      assert.deepEqual(
        parse(text, () => text.length + 1),
        reference,
        JSON.stringify(text),
      );
      assert.deepEqual(
        parse(text, () => 1 + random(12)),
        reference,
        JSON.stringify(text),
      );
    }
  });

  it('reports an unbalanced quote at the line where its record starts', () => {
    const { records, errors } = parseCsvText('id,name\n1,ok\n2,"broken\n3,lost\n');
    assert.equal(records.length, 2);
    assert.deepEqual(errors, [{ message: 'unterminated quoted field (unbalanced double quotes)', line: 3 }]);
  });

  it('rejects text after a closing quote and a quote inside an unquoted field, then resumes', () => {
    const { records, errors } = parseCsvText('1,"a"b,c\n2,ab"c\n3,fine\n');
    assert.deepEqual(records, [{ fields: ['3', 'fine'], line: 3 }]);
    assert.deepEqual(
      errors.map((e) => e.line),
      [1, 2],
    );
  });

  it('round-trips what the writer quotes', () => {
    const fields = ['plain', 'comma, here', 'quote " here', 'line\nbreak', null, 'semi;colon'];
    const { records } = parseCsvText(csvRecord(fields));
    assert.deepEqual(records[0]!.fields, fields);
  });

  it('splits array fields on ; with \\; as a literal semicolon', () => {
    assert.deepEqual(splitArray('a;b\\;c;d'), ['a', 'b;c', 'd']);
  });
});
