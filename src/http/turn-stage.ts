// One step of request handling taken by every request of an event-loop turn together.
//
// Node reads each ready socket in the poll phase and, left alone, runs each request to its
// response before reading the next: parser, verification, handler and socket write follow one
// another per request, and each evicts what the previous stage had in the caches. A TurnStage
// holds every request that reaches it in one turn until the check phase (setImmediate, right
// after the poll phase), then runs the step over them in arrival order, each request continuing
// after it. Under load the poll phase has read many requests, so the step runs as a batch with
// its code and tables hot (SigV4 verification in the server: 8.6 → 5.9 µs a request) and the
// handlers after it follow one another too (anonymous requests: a fifth to a quarter less CPU);
// with one request in the turn it is the same request a few microseconds later, in the same turn.
// Measured in docs/benchmarks.md (issue 17).

/** Runs `step` over the inputs that reached `next` in one turn of the event loop, together. */
export class TurnStage<I, O> {
  private queue: Array<{ input: I; resolve: (out: O) => void; reject: (err: unknown) => void }> = [];

  constructor(private readonly step: (input: I) => O) {}

  /** `step(input)`, in this turn's check phase, after the inputs that came before it. */
  next(input: I): Promise<O> {
    return new Promise((resolve, reject) => {
      if (this.queue.length === 0) setImmediate(this.flush);
      this.queue.push({ input, resolve, reject });
    });
  }

  /** Inputs waiting for this turn's check phase. */
  get waiting(): number {
    return this.queue.length;
  }

  private readonly flush = (): void => {
    const queue = this.queue;
    this.queue = [];
    for (const { input, resolve, reject } of queue) {
      let out: O;
      try {
        out = this.step(input);
      } catch (err) {
        reject(err);
        continue;
      }
      resolve(out);
    }
  };
}
