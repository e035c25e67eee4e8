// validateHyperparameters turns SageMaker's string map into TrainParams with xgboost 1.7's defaults
// and the job's settings, and refuses what this trainer cannot honour instead of ignoring it.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { HyperparameterError } from './errors.js';
import { validateHyperparameters } from './train-params.js';

const refused = (input: Record<string, string>, pattern: RegExp, unsupported: boolean): void => {
  assert.throws(
    () => validateHyperparameters(input),
    (e: unknown) => e instanceof HyperparameterError && pattern.test(e.message) && e.unsupported === unsupported,
  );
};

describe('validateHyperparameters', () => {
  test("only num_round given: every other parameter takes xgboost 1.7's default", () => {
    const v = validateHyperparameters({ num_round: '50' });
    assert.deepEqual(v.params, {
      num_round: 50,
      eta: 0.3,
      gamma: 0,
      max_depth: 6,
      min_child_weight: 1,
      max_delta_step: 0,
      subsample: 1,
      colsample_bytree: 1,
      colsample_bylevel: 1,
      colsample_bynode: 1,
      lambda: 1,
      alpha: 0,
      tree_method: 'auto',
      max_bin: 256,
      sketch_eps: 0.03,
      grow_policy: 'depthwise',
      max_leaves: 0,
      scale_pos_weight: 1,
      base_score: undefined,
      seed: 0,
      num_class: 0,
      objective: 'reg:squarederror',
      tweedie_variance_power: 1.5,
      huber_slope: 1,
      eval_metric: [],
      early_stopping_rounds: undefined,
      nthread: 0,
    });
    assert.equal(v.csvWeights, false);
    assert.equal(v.earlyStopping, undefined);
    assert.deepEqual([...v.given], ['num_round']);
  });

  test('values and aliases land in TrainParams; csv_weights and save_model_on_termination in the settings', () => {
    const v = validateHyperparameters({
      num_round: '10',
      learning_rate: '0.1',
      min_split_loss: '0.5',
      reg_lambda: '2',
      reg_alpha: '0.25',
      max_depth: '4',
      subsample: '0.8',
      objective: 'multi:softprob',
      num_class: '3',
      tree_method: 'hist',
      max_bin: '64',
      grow_policy: 'lossguide',
      max_leaves: '15',
      seed: '7',
      nthread: '2',
      csv_weights: '1',
      save_model_on_termination: 'true',
    });
    const p = v.params;
    assert.deepEqual(
      [p.eta, p.gamma, p.lambda, p.alpha, p.max_depth, p.subsample, p.num_class, p.objective],
      [0.1, 0.5, 2, 0.25, 4, 0.8, 3, 'multi:softprob'],
    );
    assert.deepEqual(
      [p.tree_method, p.max_bin, p.grow_policy, p.max_leaves, p.seed, p.nthread],
      ['hist', 64, 'lossguide', 15, 7, 2],
    );
    assert.equal(v.csvWeights, true);
    assert.equal(v.saveModelOnTermination, true);
    assert.ok(v.given.has('eta') && !v.given.has('learning_rate'));
  });

  test("the container's refusals come first, in its words", () => {
    refused({ num_round: '10', max_depth: '-3' }, /^Hyperparameter max_depth: -3 is not in \[0, \+inf\)$/, false);
    refused(
      { num_round: '10', objective: 'multi:softmax' },
      /^Require input for parameter 'num_class' for multi-classification$/,
      false,
    );
    refused(
      { num_round: '10', objective: 'nope' },
      /^Hyperparameter objective: nope is not in \['aft_loss_distribution', 'binary:logistic'/,
      false,
    );
    refused({ eta: '0.1' }, /^Missing required hyperparameter: num_round$/, false);
  });

  test('accepted by the container but not trainable here: refused as unsupported, naming the reason', () => {
    refused({ num_round: '10', booster: 'dart' }, /^Hyperparameter booster: 'dart' is not trained here/, true);
    refused({ num_round: '10', objective: 'rank:pairwise' }, /^Hyperparameter objective: 'rank:pairwise'/, true);
    refused({ num_round: '10', objective: 'survival:cox' }, /survival:cox/, true);
    refused({ num_round: '10', _kfold: '5' }, /^Hyperparameter _kfold: cross-validation/, true);
    refused({ num_round: '10', num_parallel_tree: '4' }, /random forests/, true);
    refused({ num_round: '10', tree_method: 'hist', monotone_constraints: '(1,-1)' }, /monotone_constraints/, true);
    refused({ num_round: '10', updater: 'prune', process_type: 'update' }, /process_type: 'update'/, true);
  });

  test('num_class without a multi-class objective and a logistic base_score outside (0,1) are refused early', () => {
    refused(
      { num_round: '10', num_class: '3' },
      /num_class is only used with the multi:softmax and multi:softprob objectives/,
      false,
    );
    refused(
      { num_round: '10', objective: 'binary:logistic', base_score: '1' },
      /base_score must be in \(0,1\) for logistic loss/,
      false,
    );
    assert.equal(
      validateHyperparameters({ num_round: '1', objective: 'binary:logistic', base_score: '0.2' }).params.base_score,
      0.2,
    );
  });

  test('GPU, dart-only and logging parameters are accepted and reported as ignored; gpu_hist trains as hist', () => {
    const v = validateHyperparameters({
      num_round: '10',
      tree_method: 'gpu_hist',
      predictor: 'gpu_predictor',
      deterministic_histogram: 'true',
      updater: 'grow_colmaker,prune',
      dsplit: 'row',
      prob_buffer_row: '2',
      verbosity: '2',
      rate_drop: '0.1',
    });
    assert.equal(v.params.tree_method, 'hist');
    assert.deepEqual(v.ignored.sort(), [
      'deterministic_histogram',
      'dsplit',
      'predictor',
      'prob_buffer_row',
      'rate_drop',
      'updater',
      'verbosity',
    ]);
  });

  test("eval_metric: xgboost's metrics go to TrainParams, the container's own (accuracy, f1 ...) to the settings", () => {
    const v = validateHyperparameters({
      num_round: '10',
      objective: 'binary:logistic',
      eval_metric: 'auc,error@0.3,f1',
    });
    assert.deepEqual(v.params.eval_metric, ['auc', 'error@0.3']);
    assert.deepEqual(v.containerMetrics, ['f1']);
  });

  test('early stopping watches the HPO metric, else the last eval_metric; maximises auc-like metrics', () => {
    const a = validateHyperparameters({
      num_round: '10',
      objective: 'binary:logistic',
      eval_metric: 'logloss,auc',
      early_stopping_rounds: '3',
    });
    assert.deepEqual(a.earlyStopping, { rounds: 3, metric: 'auc', maximize: true });
    assert.equal(a.params.early_stopping_rounds, 3);
    const b = validateHyperparameters({
      num_round: '10',
      objective: 'binary:logistic',
      eval_metric: 'auc',
      _tuning_objective_metric: 'validation:logloss',
      early_stopping_rounds: '2',
    });
    assert.deepEqual(b.earlyStopping, { rounds: 2, metric: 'logloss', maximize: false });
    assert.deepEqual(b.params.eval_metric, ['auc', 'logloss']); // sorted union, as the container
    assert.equal(b.tuningObjectiveMetric, 'validation:logloss');
    // without a metric to watch, the container sets no early stopping at all
    assert.equal(validateHyperparameters({ num_round: '10', early_stopping_rounds: '2' }).earlyStopping, undefined);
  });
});
