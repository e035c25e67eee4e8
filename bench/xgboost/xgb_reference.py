#!/usr/bin/env python3
"""Reference side of bench/xgboost: trains the bench models with xgboost and times its own C++
predict on one thread. Writes into OUT_DIR: data.f32 (10,000 x 8 float32, NaN = missing),
<name>.json models, <name>.pred.f32 predictions, and prints a JSON summary on stdout.

Usage: python3 bench/xgboost/xgb_reference.py OUT_DIR [REPEATS]
"""
import json
import os
import sys
import time
import warnings

import numpy as np
import xgboost as xgb

warnings.filterwarnings("ignore")
out = sys.argv[1]
repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 20
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(12345)
n_train, n_rows, nf = 20000, 10000, 8
Xtr = rng.normal(0, 1, (n_train, nf)).astype(np.float32)
ytr = np.sin(2 * Xtr[:, 0]) + Xtr[:, 1] * Xtr[:, 2] + np.abs(Xtr[:, 3]) + 0.3 * Xtr[:, 4] + rng.normal(0, 0.1, n_train)
X = rng.normal(0, 1, (n_rows, nf)).astype(np.float32)
X[rng.random(X.shape) < 0.02] = np.nan
X.astype("<f4").tofile(os.path.join(out, "data.f32"))
dtrain = xgb.DMatrix(Xtr, label=ytr)
result = {"xgboost": xgb.__version__, "rows": n_rows, "features": nf, "models": {}}
for name, rounds, depth in (("trees50_depth5", 50, 5), ("trees500_depth8", 500, 8)):
    bst = xgb.train({"objective": "reg:squarederror", "max_depth": depth, "eta": 0.1, "nthread": 1,
                     "min_child_weight": 1, "seed": 1}, dtrain, rounds)
    bst.set_param({"nthread": 1})
    bst.save_model(os.path.join(out, name + ".json"))
    # A fresh DMatrix per run: the Booster caches predictions per DMatrix, and the bench wants
    # the predict itself (DMatrix construction is outside the timed region).
    pred = bst.predict(xgb.DMatrix(X, missing=np.nan, nthread=1))  # warm-up
    mats = [xgb.DMatrix(X, missing=np.nan, nthread=1) for _ in range(repeats)]
    times = []
    for m in mats:
        t0 = time.perf_counter()
        pred = bst.predict(m)
        times.append(time.perf_counter() - t0)
    pred.astype("<f4").tofile(os.path.join(out, name + ".pred.f32"))
    nodes = sum(d.count("\n") for d in bst.get_dump())
    result["models"][name] = {"trees": rounds, "depth": depth, "nodes": nodes,
                              "best_ms": min(times) * 1e3, "median_ms": float(np.median(times)) * 1e3}
print(json.dumps(result))
