// Stopping training jobs on their intermediate objective values. Two rules share one seam: the
// tuner hands each value a running child reports (its round or epoch, the value) to a Stopper,
// which says whether to stop the job now (StopTrainingJob: the child ends Stopped).
//  - TrainingJobEarlyStoppingType Auto, SageMaker's median rule
//    (https://docs.aws.amazon.com/sagemaker/latest/dg/automatic-model-tuning-early-stopping.html):
//    stop a job whose value at epoch t is worse than the median of the running averages, up to
//    epoch t, of the objective of the jobs that ended before.
//  - Hyperband's rungs (./strategies/hyperband.ts).

/** What the tuner knows of one child's objective as it trains. */
export interface Curve {
  readonly seq: number;
  readonly definition: string;
  /** Objective value by round / epoch (1-based: the value after that many rounds). */
  readonly values: ReadonlyMap<number, number>;
  /** The job has ended (Completed, Stopped or Failed). */
  readonly ended: boolean;
}

export interface Stopper {
  /** `job` reported `value` after `round` rounds; true: stop it. `all` holds every child's curve (itself included). */
  shouldStop(job: Curve, round: number, value: number, all: readonly Curve[]): boolean;
}

/** Jobs that must have ended before the median rule stops anything (fewer give no meaningful median). */
export const MEDIAN_RULE_MIN_JOBS = 3;

export function medianStopper(maximize: boolean): Stopper {
  return {
    shouldStop(job, round, value, all) {
      const averages: number[] = [];
      for (const c of all) {
        if (c === job || c.seq === job.seq || !c.ended || c.definition !== job.definition) continue;
        let sum = 0;
        let n = 0;
        let reached = false;
        for (const [r, v] of c.values) {
          if (r <= round) {
            sum += v;
            n++;
          }
          if (r >= round) reached = true;
        }
        if (reached && n > 0) averages.push(sum / n);
      }
      if (averages.length < MEDIAN_RULE_MIN_JOBS) return false;
      averages.sort((a, b) => a - b);
      const mid = averages.length / 2;
      const median = averages.length % 2 === 1 ? averages[Math.floor(mid)]! : (averages[mid - 1]! + averages[mid]!) / 2;
      return maximize ? value < median : value > median;
    },
  };
}
