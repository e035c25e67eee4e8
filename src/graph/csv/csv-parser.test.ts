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
