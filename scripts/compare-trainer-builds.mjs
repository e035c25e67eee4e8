// Trains random configurations (objectives, tree methods, missing values, regularisation, growth
// policies, 1 or 2 threads) with two builds of the trainer and compares the models' JSON, byte for
// byte: a change meant only to make the trainer faster must print "diff 0".
// Usage: git worktree add /tmp/base main && ln -s "$PWD/node_modules" /tmp/base/ && (cd /tmp/base && npx tsc -p .)
//        npm run build && N=150 node scripts/compare-trainer-builds.mjs /tmp/base "$PWD"
const [A, B] = process.argv.slice(2);
const va = await import(`${A}/dist/src/training/xgboost/hyperparameters/index.js`);
const ta = await import(`${A}/dist/src/training/xgboost/train.js`);
const tb = await import(`${B}/dist/src/training/xgboost/train.js`);
let seed = 7;
const rnd = () => {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  return seed / 2 ** 32;
};
const pick = (a) => a[Math.floor(rnd() * a.length)];
let same = 0,
  diff = 0;
const N = Number(process.env.N ?? 120);
for (let k = 0; k < N; k++) {
  const rows = 200 + Math.floor(rnd() * 2000),
    cols = 2 + Math.floor(rnd() * 10);
  const miss = rnd() < 0.5 ? 0 : rnd() * 0.3;
  const obj = pick([
    'reg:squarederror',
    'reg:logistic',
    'binary:logistic',
    'count:poisson',
    'reg:gamma',
    'reg:tweedie',
    'reg:pseudohubererror',
    'multi:softprob',
    'binary:hinge',
  ]);
  const data = new Float32Array(rows * cols),
    labels = new Float32Array(rows);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++)
      data[r * cols + c] = rnd() < miss ? NaN : rnd() < 0.3 ? Math.floor(rnd() * 5) : rnd() * 4 - 2;
    const z = (data[r * cols] || 0) + Math.sin(3 * (data[r * cols + 1] || 0)) + rnd() * 0.5;
    labels[r] = obj.startsWith('multi')
      ? Math.floor(rnd() * 3)
      : obj.includes('logistic') || obj.includes('hinge')
        ? z > 0.3
          ? 1
          : 0
        : obj.includes('poisson') || obj.includes('gamma') || obj.includes('tweedie')
          ? Math.exp(z / 2)
          : z;
  }
  const hp = {
    num_round: String(5 + Math.floor(rnd() * 20)),
    objective: obj,
    tree_method: pick(['exact', 'hist', 'approx']),
    max_depth: String(1 + Math.floor(rnd() * 7)),
    eta: pick(['0.3', '0.1', '0.5']),
    gamma: pick(['0', '0.5', '4']),
    min_child_weight: pick(['0', '1', '6']),
    lambda: pick(['1', '0', '3']),
    alpha: pick(['0', '0', '0.5']),
    max_delta_step: pick(['0', '0', '0.7']),
    grow_policy: pick(['depthwise', 'depthwise', 'lossguide']),
    max_bin: pick(['256', '16', '64']),
  };
  if (hp.grow_policy === 'lossguide') {
    if (hp.tree_method === 'exact') hp.tree_method = 'hist';
    hp.max_leaves = pick(['0', '8', '31']);
  }
  if (obj.startsWith('multi')) hp.num_class = '3';
  const v = va.validateHyperparameters(hp);
  const dm = { numRows: rows, numCols: cols, data, labels };
  const nthread = 1 + Math.floor(rnd() * 2);
  const ra = await ta.train({ ...v.params, nthread }, dm, [{ name: 'train', data: dm }]);
  const rb = await tb.train({ ...v.params, nthread: 3 - nthread }, dm, [{ name: 'train', data: dm }]);
  const ja = JSON.stringify(ra.model),
    jb = JSON.stringify(rb.model);
  if (ja === jb) same++;
  else {
    diff++;
    console.log('DIFF', JSON.stringify(hp), rows, cols, miss);
  }
}
console.log(`same ${same} diff ${diff}`);
