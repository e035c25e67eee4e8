// Asks the suggestion worker (./suggest-worker.ts) for a tuning job's next configuration. The
// worker starts at the first request and does not keep the process alive; if it cannot start or
// dies, suggestions are computed on this thread instead (slower for the event loop, never wrong).
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { Strategy, Suggestion } from './strategy.js';
import { answer, type SuggestMessage, type SuggestReply } from './suggest-worker.js';

type Request = Omit<Extract<SuggestMessage, { t: 'suggest' }>, 't' | 'id'>;

const ENTRY = new URL('./suggest-worker.js', import.meta.url);

export class Suggester {
  #worker: Worker | undefined;
  #broken = false;
  #next = 1;
  readonly #pending = new Map<number, { resolve(s: Suggestion | undefined): void; reject(e: Error): void }>();
  readonly #inline = new Map<string, Strategy>();

  constructor(private readonly log: Logger) {}

  async suggest(r: Request): Promise<Suggestion | undefined> {
    const worker = this.#start();
    if (!worker) return answer({ t: 'suggest', id: 0, ...r }, this.#inline);
    const id = this.#next++;
    return new Promise<Suggestion | undefined>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      if (this.#pending.size === 1) worker.ref();
      worker.postMessage({ t: 'suggest', id, ...r } satisfies SuggestMessage);
    }).catch((e: Error) => {
      // A refusal of the request itself (planTuning) is the run's error; a dead worker is not.
      if (!this.#broken) throw e;
      return answer({ t: 'suggest', id: 0, ...r }, this.#inline);
    });
  }

  /** The tuning job ended: its strategy is no longer needed. */
  forget(key: string): void {
    this.#inline.delete(key);
    this.#worker?.postMessage({ t: 'forget', key } satisfies SuggestMessage);
  }

  async close(): Promise<void> {
    const w = this.#worker;
    this.#worker = undefined;
    await w?.terminate();
  }

  #start(): Worker | undefined {
    if (this.#worker || this.#broken) return this.#worker;
    try {
      const w = new Worker(ENTRY);
      w.unref();
      w.on('message', (m: SuggestReply) => {
        const p = this.#pending.get(m.id);
        if (!p) return;
        this.#pending.delete(m.id);
        if (this.#pending.size === 0) w.unref();
        if (m.ok) p.resolve(m.suggestion ?? undefined);
        else p.reject(new Error(m.message));
      });
      const fail = (err: unknown) => {
        this.log.warn({ err }, 'tuning: the suggestion worker stopped; suggesting on the main thread');
        this.#broken = true;
        this.#worker = undefined;
        for (const p of this.#pending.values()) p.reject(new Error('suggestion worker stopped'));
        this.#pending.clear();
      };
      w.on('error', fail);
      w.on('exit', (code) => {
        if (this.#worker === w) fail(new Error(`exit ${code}`));
      });
      this.#worker = w;
      return w;
    } catch (err) {
      this.log.warn({ err }, 'tuning: no suggestion worker; suggesting on the main thread');
      this.#broken = true;
      return undefined;
    }
  }
}
