// The thread that hashes large request bodies for digests.ts, so MD5 (S3's ETag) and the other
// checksums of an upload do not hold the event loop: each message is one batch of one body.
import { parentPort } from 'node:worker_threads';
import { type Checksum, createChecksum } from './checksums.js';
import type { DigestReply, DigestRequest } from './digests.js';

const bodies = new Map<number, { md5: Checksum; sha256?: Checksum; checksum?: Checksum }>();

parentPort!.on('message', (m: DigestRequest) => {
  switch (m.t) {
    case 'start':
      bodies.set(m.id, {
        md5: createChecksum('MD5'),
        ...(m.sha256 ? { sha256: createChecksum('SHA256') } : {}),
        ...(m.checksum ? { checksum: createChecksum(m.checksum) } : {}),
      });
      return;
    case 'update': {
      const b = bodies.get(m.id);
      if (!b) return;
      const data = new Uint8Array(m.data);
      b.md5.update(data);
      b.sha256?.update(data);
      b.checksum?.update(data);
      reply({ t: 'ack', id: m.id, bytes: data.length });
      return;
    }
    case 'finish': {
      const b = bodies.get(m.id);
      if (!b) return;
      bodies.delete(m.id);
      reply({
        t: 'done',
        id: m.id,
        md5: b.md5.digest().toString('hex'),
        ...(b.sha256 ? { sha256: b.sha256.digest().toString('hex') } : {}),
        ...(b.checksum ? { checksum: b.checksum.digest().toString('base64') } : {}),
      });
      return;
    }
    case 'abort':
      bodies.delete(m.id);
      return;
  }
});

function reply(m: DigestReply): void {
  parentPort!.postMessage(m);
}
