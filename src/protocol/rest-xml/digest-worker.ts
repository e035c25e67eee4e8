// The thread that hashes large request bodies for digests.ts, so MD5 (S3's ETag) and the other
// checksums of an upload do not hold the event loop: each message is one batch of one body.
import { parentPort } from 'node:worker_threads';
import { BodyHashes, type DigestReply, type DigestRequest } from './digests.js';

const bodies = new Map<number, BodyHashes>();

parentPort!.on('message', (m: DigestRequest) => {
  switch (m.t) {
    case 'start':
      bodies.set(m.id, new BodyHashes(m.plan));
      return;
    case 'update': {
      const b = bodies.get(m.id);
      if (!b) return;
      b.update(new Uint8Array(m.data));
      reply({ t: 'ack', id: m.id, bytes: m.data.byteLength });
      return;
    }
    case 'finish': {
      const b = bodies.get(m.id);
      if (!b) return;
      bodies.delete(m.id);
      reply({ t: 'done', id: m.id, digests: b.digests() });
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
