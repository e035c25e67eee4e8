import assert from 'node:assert/strict';
import { test } from 'node:test';
import { model } from '../../generated/s3/model.js';
import { RestXmlProtocol } from './rest-xml.js';
import type { S3Error } from './s3-errors.js';

const protocol = new RestXmlProtocol(model, { ListObjectsV2: 'ListBucketResult' });
const req = (method: string, url: string, headers: Record<string, string> = {}) => {
  const [path, query] = url.split('?');
  return { method, path: path!, query: new URLSearchParams(query ?? ''), headers };
};
const op = (method: string, url: string, headers?: Record<string, string>) =>
  protocol.match(req(method, url, headers)).op.name;

test('routes by method, path, sub-resource and the required members the model declares', () => {
  assert.equal(op('GET', '/'), 'ListBuckets');
  assert.equal(op('PUT', '/b'), 'CreateBucket');
  assert.equal(op('HEAD', '/b/'), 'HeadBucket');
  assert.equal(op('GET', '/b'), 'ListObjects');
  assert.equal(op('GET', '/b?list-type=2&prefix=x'), 'ListObjectsV2');
  assert.equal(op('GET', '/b?uploads'), 'ListMultipartUploads');
  assert.equal(op('GET', '/b?location'), 'GetBucketLocation');
  assert.equal(op('POST', '/b?delete'), 'DeleteObjects');
  assert.equal(op('PUT', '/b/k'), 'PutObject');
  assert.equal(op('PUT', '/b/k?partNumber=1&uploadId=u'), 'UploadPart');
  assert.equal(op('PUT', '/b/k', { 'x-amz-copy-source': '/b/j' }), 'CopyObject');
  assert.equal(op('POST', '/b/k?uploads'), 'CreateMultipartUpload');
  assert.equal(op('POST', '/b/k?uploadId=u'), 'CompleteMultipartUpload');
  assert.equal(op('DELETE', '/b/k?uploadId=u'), 'AbortMultipartUpload');
  assert.equal(op('DELETE', '/b/k'), 'DeleteObject');
  assert.equal(op('GET', '/b/k?uploadId=u'), 'ListParts');
  assert.equal(op('GET', '/b/k?x-id=GetObject'), 'GetObject');
});

test('keys keep their slashes and are percent-decoded once', () => {
  const m = protocol.match(req('GET', '/b//a//b%2Fc%20d+e'));
  assert.deepEqual(m.labels, { Bucket: 'b', Key: '/a//b/c d+e' });
});

test('unserved sub-resources and methods are refused, not mistaken for plain operations', () => {
  const code = (fn: () => unknown) => {
    try {
      fn();
    } catch (err) {
      return (err as S3Error).code;
    }
    return 'none';
  };
  assert.equal(
    code(() => op('GET', '/b?acl')),
    'NotImplemented',
  );
  assert.equal(
    code(() => op('PUT', '/b/k?tagging')),
    'NotImplemented',
  );
  assert.equal(
    code(() => op('POST', '/b/k')),
    'MethodNotAllowed',
  );
  assert.equal(
    code(() => op('GET', '/b/%E0%A4%A')),
    'InvalidURI',
  );
});

test('binds headers, header maps and typed query values; serialises flattened lists', () => {
  const m = protocol.match(req('GET', '/b?list-type=2&max-keys=5&fetch-owner=true'));
  const input = protocol.bindInput(m.op, req('GET', '/b?list-type=2&max-keys=5&fetch-owner=true'), m.labels);
  assert.deepEqual(input, { Bucket: 'b', MaxKeys: 5, FetchOwner: true });
  const put = protocol.match(req('PUT', '/b/k'));
  const putInput = protocol.bindInput(
    put.op,
    req('PUT', '/b/k', { 'x-amz-meta-a': '1', 'content-type': 'text/plain' }),
    put.labels,
  );
  assert.deepEqual(putInput.Metadata, { a: '1' });
  assert.equal(putInput.ContentType, 'text/plain');
  assert.throws(() => protocol.bindInput(m.op, req('GET', '/b?list-type=2&max-keys=x'), m.labels), /not an integer/);

  const out = protocol.writeOutput(model.operations.ListObjectsV2, {
    Name: 'b',
    Contents: [
      { Key: 'a<1>', Size: 1, LastModified: new Date(0) },
      { Key: 'b', Size: 2 },
    ],
    CommonPrefixes: [{ Prefix: 'p/' }],
    IsTruncated: false,
  });
  assert.equal(
    out.body,
    '<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><IsTruncated>false</IsTruncated>' +
      '<Contents><Key>a&lt;1&gt;</Key><LastModified>1970-01-01T00:00:00.000Z</LastModified><Size>1</Size></Contents><Contents><Key>b</Key><Size>2</Size></Contents>' +
      '<Name>b</Name><CommonPrefixes><Prefix>p/</Prefix></CommonPrefixes></ListBucketResult>',
  );
  const parsed = protocol.parsePayload(
    model.operations.CompleteMultipartUpload,
    Buffer.from(
      '<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>"e"</ETag></Part><Part><PartNumber>2</PartNumber><ETag>"f"</ETag></Part></CompleteMultipartUpload>',
    ),
  );
  assert.deepEqual(parsed, {
    Parts: [
      { PartNumber: 1, ETag: '"e"' },
      { PartNumber: 2, ETag: '"f"' },
    ],
  });
});
