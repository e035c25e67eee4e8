// The worker thread Bayesian suggestions are computed in (fitting a Gaussian process takes tens of
// milliseconds the server's event loop should spend serving). One strategy per tuning job is kept
// between suggestions, so each fit starts from the last one's kernel hyperparameters.
import { parentPort } from 'node:worker_threads';
import type { CreateHyperParameterTuningJobRequest } from '../generated/sagemaker/shapes.js';
import { planTuning } from './plan.js';
import { strategyFor } from './strategies/index.js';
import type { Strategy, Suggestion, Trial } from './strategy.js';

export type SuggestMessage =
  | {
      readonly t: 'suggest';
      readonly id: number;
      readonly key: string;
      readonly request: Omit<CreateHyperParameterTuningJobRequest, 'HyperParameterTuningJobName'>;
      readonly seed: number;
      readonly seq: number;
      readonly trials: readonly Trial[];
    }
  | { readonly t: 'forget'; readonly key: string };

export type SuggestReply =
  | { readonly id: number; readonly ok: true; readonly suggestion: Suggestion | null }
  | { readonly id: number; readonly ok: false; readonly message: string };

const strategies = new Map<string, Strategy>();

/** The suggestion for a message, with the strategy kept in `cache` (also used inline when there is no worker). */
export function answer(
  m: Extract<SuggestMessage, { t: 'suggest' }>,
  cache: Map<string, Strategy>,
): Suggestion | undefined {
  let s = cache.get(m.key);
  if (!s) {
    s = strategyFor(planTuning(m.request), m.seed);
    cache.set(m.key, s);
  }
  return s.suggest(m.seq, m.trials);
}

parentPort?.on('message', (m: SuggestMessage) => {
  if (m.t === 'forget') {
    strategies.delete(m.key);
    return;
  }
  let reply: SuggestReply;
  try {
    reply = { id: m.id, ok: true, suggestion: answer(m, strategies) ?? null };
  } catch (e) {
    reply = { id: m.id, ok: false, message: e instanceof Error ? e.message : String(e) };
  }
  parentPort!.postMessage(reply);
});
