import assert from 'node:assert/strict';
import { test } from 'node:test';
import { escapeXml, parseXml, XmlSyntaxError } from './xml.js';

test('parses S3 request documents: namespaces, entities, CDATA, comments', () => {
  const doc = parseXml(
    '<?xml version="1.0" encoding="UTF-8"?>\n<Delete xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><!-- c --><Object><Key>a&amp;b&#x2F;&lt;c&gt;</Key></Object>' +
      '<Object><Key><![CDATA[<raw>]]></Key></Object><Quiet>true</Quiet><s3:Empty xmlns:s3="x"/></Delete>',
  );
  assert.equal(doc.name, 'Delete');
  assert.deepEqual(
    doc.children.filter((c) => c.name === 'Object').map((o) => o.children[0]!.text),
    ['a&b/<c>', '<raw>'],
  );
  assert.equal(doc.children.find((c) => c.name === 'Quiet')!.text, 'true');
  assert.equal(doc.children.at(-1)!.name, 'Empty');
});

test('refuses DOCTYPE (no entity expansion), unknown entities and broken nesting', () => {
  for (const bad of [
    '<!DOCTYPE x [<!ENTITY a "b">]><x>&a;</x>',
    '<x>&unknown;</x>',
    '<a><b></a></b>',
    '<a>',
    '<a></a><b></b>',
    'text',
  ]) {
    assert.throws(() => parseXml(bad), XmlSyntaxError, bad);
  }
});

test('escapes markup and control characters', () => {
  assert.equal(escapeXml(`a<b>&"c'\r\u0001`), 'a&lt;b&gt;&amp;&quot;c&apos;&#13;&#1;');
});
