// The container's hyperparameter validation, step for step (sagemaker_algorithm_toolkit
// Hyperparameters.validate with the SageMaker XGBoost declarations of ./spec.ts):
//   0. aliases are replaced by their names (learning_rate → eta, ...; the later key wins);
//   1. a missing required hyperparameter fails ("Missing required hyperparameter: num_round");
//   2. each value is parsed (int(), float(), split(",") ...) — unknown names fail
//      ("Extraneous hyperparameter found: x"), unparsable values fail ("could not parse value");
//   3. each value is checked against its range, in the order given;
//   4. dependency validators run, dependencies first (num_class before objective, ...).
// The first failure is thrown as a HyperparameterError with the container's message.

import { HyperparameterError } from './errors.js';
import {
  type PyValue,
  PyFloat,
  PyTuple,
  parseIntLiteral,
  parsePythonFloat,
  parsePythonInt,
  pyList,
  pyRepr,
  pyStr,
} from './python.js';
import { ALIASES, dependenciesOf, HYPERPARAMETERS, inInterval, SUPPORTED_METRICS, type Spec } from './spec.js';

const fail = (message: string, name?: string): never => {
  throw new HyperparameterError(message, name);
};

/** Validate and parse a string→string hyperparameter map as the container does. */
export function validateAsContainer(input: Readonly<Record<string, string>>): Map<string, PyValue> {
  const given = new Map<string, string>();
  for (const [k, v] of Object.entries(input)) given.set(ALIASES.get(k) ?? k, v);

  for (const [name, spec] of HYPERPARAMETERS) {
    if (spec.kind === 'int' && spec.required && !given.has(name))
      fail(`Missing required hyperparameter: ${name}`, name);
  }

  const parsed = new Map<string, PyValue>();
  for (const [name, raw] of given) {
    const spec = HYPERPARAMETERS.get(name);
    if (!spec) fail(`Extraneous hyperparameter found: ${name}`, name);
    if (typeof raw !== 'string') fail(`Hyperparameter ${name}: could not parse value (caused by ValueError)`, name);
    const v = parse(spec as Spec, raw);
    if (v === undefined) fail(`Hyperparameter ${name}: could not parse value (caused by ValueError)`, name);
    parsed.set(name, v as PyValue);
  }

  for (const [name, v] of parsed) checkRange(name, HYPERPARAMETERS.get(name) as Spec, v);

  const validated = new Map<string, PyValue>();
  for (const name of dependencyOrder([...parsed.keys()])) {
    const deps = new Map<string, PyValue>();
    for (const d of dependenciesOf(name)) if (validated.has(d)) deps.set(d, validated.get(d) as PyValue);
    checkDependencies(name, parsed.get(name) as PyValue, deps);
    validated.set(name, parsed.get(name) as PyValue);
  }
  return validated;
}

function parse(spec: Spec, raw: string): PyValue | undefined {
  switch (spec.kind) {
    case 'int':
      return parsePythonInt(raw);
    case 'float': {
      const f = parsePythonFloat(raw);
      return f === undefined ? undefined : new PyFloat(f);
    }
    case 'cat':
      return raw;
    case 'list':
      return raw.split(',');
    case 'tuple':
    case 'nested':
      return parseIntLiteral(raw);
  }
}

function checkRange(name: string, spec: Spec, v: PyValue): void {
  switch (spec.kind) {
    case 'int':
    case 'float': {
      const n = typeof v === 'bigint' ? Number(v) : (v as PyFloat).value;
      // DEVIATION(aws): Python's interval test lets NaN through ("eta=nan" trains garbage); refused.
      if (Number.isNaN(n) || !inInterval(spec.range, n)) {
        fail(`Hyperparameter ${name}: ${pyStr(v)} is not in ${spec.range.text}`, name);
      }
      return;
    }
    case 'cat':
      if (!spec.values.includes(v as string))
        fail(`Hyperparameter ${name}: ${pyStr(v)} is not in ${pyList(spec.values)}`, name);
      return;
    case 'list': {
      const items = v as string[];
      const ok = spec.values ? items.every((x) => spec.values?.includes(x)) : items.every(isSupportedMetric);
      if (!ok)
        fail(
          `Hyperparameter ${name}: value ${pyRepr(v)} not in range ${pyList(spec.values ?? SUPPORTED_METRICS)}`,
          name,
        );
      return;
    }
    case 'tuple': {
      const items = v instanceof PyTuple ? v.items : Array.isArray(v) ? v : undefined;
      const ok = items?.every((x) => typeof x === 'bigint' && spec.values.includes(Number(x)));
      if (!ok) fail(`Hyperparameter ${name}: value ${pyRepr(v)} not in range ${pyList(spec.values)}`, name);
      return;
    }
    case 'nested': {
      const outer = Array.isArray(v) ? v : v instanceof PyTuple ? v.items : undefined;
      const ok = outer?.every((o) => {
        const inner = Array.isArray(o) ? o : o instanceof PyTuple ? o.items : undefined;
        return inner?.every((x) => typeof x === 'bigint' && inInterval(spec.range, Number(x)));
      });
      if (!ok) fail(`Hyperparameter ${name}: value ${pyRepr(v)} not in range ${spec.range.text}`, name);
      return;
    }
  }
}

/** eval_metric_range_validator: a known metric, or error/ndcg/map with an "@<float>" threshold. */
function isSupportedMetric(metric: string): boolean {
  if (metric.includes('<function'))
    fail(`User defined evaluation metric ${metric} is not supported yet.`, 'eval_metric');
  const at = metric.indexOf('@');
  if (at >= 0) {
    const name = metric.split('@')[0].trim();
    const threshold = metric.split('@')[1].trim();
    if (!['error', 'ndcg', 'map'].includes(name)) {
      fail(
        `Metric '${metric}' is not supported. Parameter 'eval_metric' with customized threshold should be one of these options: 'error', 'ndcg', 'map'.`,
        'eval_metric',
      );
    }
    if (parsePythonFloat(threshold) === undefined)
      fail(`Threshold value 't' in '${name}@t' expects float input.`, 'eval_metric');
    return true;
  }
  return SUPPORTED_METRICS.includes(metric);
}

/** Hyperparameters._sort_dependencies: depth-first, each after the dependencies it was given with. */
function dependencyOrder(names: string[]): string[] {
  const present = new Set(names);
  const visited = new Set<string>();
  const order: string[] = [];
  const visit = (n: string): void => {
    visited.add(n);
    for (const d of dependenciesOf(n)) if (present.has(d) && !visited.has(d)) visit(d);
    order.push(n);
  };
  for (const n of names) if (!visited.has(n)) visit(n);
  return order;
}

const TREE_PLUGINS = [
  'grow_colmaker',
  'distcol',
  'grow_histmaker',
  'grow_skmaker',
  'sync',
  'refresh',
  'prune',
  'grow_quantile_histmaker',
];
const TREE_BUILD_PLUGINS = ['grow_colmaker', 'distcol', 'grow_histmaker', 'grow_quantile_histmaker'];

function checkDependencies(name: string, v: PyValue, deps: Map<string, PyValue>): void {
  switch (name) {
    case 'objective':
      if ((v === 'multi:softmax' || v === 'multi:softprob') && !deps.has('num_class')) {
        fail("Require input for parameter 'num_class' for multi-classification", 'num_class');
      }
      return;
    case 'eval_metric': {
      const metrics = v as string[];
      // DEVIATION(aws): without an objective the container's validator raises KeyError('objective');
      // we apply xgboost's default objective instead.
      const objective = (deps.get('objective') as string | undefined) ?? 'reg:squarederror';
      if (metrics.includes('auc') && !objective.startsWith('binary:') && !objective.startsWith('rank:')) {
        fail("Metric 'auc' can only be applied for classification and ranking problems.", 'eval_metric');
      }
      if (metrics.includes('aft-nloglik') && objective !== 'survival:aft') {
        fail("Metric 'aft-nloglik' can only be applied for 'survival:aft' objective.", 'eval_metric');
      }
      return;
    }
    case 'monotone_constraints': {
      const tm = deps.get('tree_method');
      if (tm !== 'exact' && tm !== 'hist') {
        fail(
          "monotone_constraints can be used only when the tree_method parameter is set to either 'exact' or 'hist'.",
          name,
        );
      }
      return;
    }
    case 'interaction_constraints': {
      const tm = deps.get('tree_method');
      if (tm !== 'exact' && tm !== 'hist' && tm !== 'approx') {
        fail(
          "interaction_constraints can be used only when the tree_method parameter is set to either 'exact', 'hist' or 'approx'.",
          name,
        );
      }
      return;
    }
    case 'updater': {
      const items = v as string[];
      if (deps.get('booster') === 'gblinear') {
        // DEVIATION(aws): the container formats this message from a generator object (garbled).
        if (!(items.length === 1 && ['shotgun', 'coord_descent'].includes(items[0]))) {
          fail("Linear updater should be one of these options: 'shotgun', 'coord_descent'.", name);
        }
      } else if (deps.get('process_type') === 'update') {
        if (!items.every((x) => x === 'refresh' || x === 'prune')) {
          fail("process_type 'update' can only be used with updater 'refresh' and 'prune'", name);
        }
      } else {
        if (!items.every((x) => TREE_PLUGINS.includes(x))) {
          fail(
            "Tree updater should be selected from these options: 'grow_colmaker', 'distcol', 'grow_histmaker', 'grow_skmaker', 'grow_quantile_histmaker', 'sync', 'refresh', 'prune', 'shortgun', 'coord_descent'.",
            name,
          );
        }
        if (items.filter((x) => TREE_BUILD_PLUGINS.includes(x)).length > 1) {
          fail(
            "Only one tree grow plugin can be selected. Choose one from thefollowing: 'grow_colmaker', 'distcol', 'grow_histmaker', 'grow_skmaker'",
            name,
          );
        }
      }
      return;
    }
  }
}
