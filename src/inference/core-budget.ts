// The model workers busy with a request (or starting) across all of a server's pools, against its
// CPUs. More busy workers than CPUs only take turns on them, each woken cold: on 2 vCPUs four
// workers of a scikit-learn model served a quarter fewer requests a second than two did
// (docs/benchmarks.md, issue 30). A pool with a fast model holds back while the budget is full
// (ServerlessPool.takeSlot), whichever endpoints' workers fill it.
import { availableParallelism } from 'node:os';

export class CoreBudget {
  /** Workers busy with a request or starting, in every pool that shares this budget. */
  busy = 0;
  readonly cpus: number;

  constructor(cpus: number = availableParallelism()) {
    this.cpus = Math.max(1, Math.floor(cpus));
  }

  /** As many workers are busy as there are CPUs. */
  get full(): boolean {
    return this.busy >= this.cpus;
  }
}
