"""ScriptProcessor script in the XGBoost image: trains a quick booster on the split and writes a report."""
import glob
import json
import os
import sys

import numpy as np
import xgboost as xgb

(path,) = glob.glob("/opt/ml/processing/input/train/*.csv")
data = np.loadtxt(path, delimiter=",", ndmin=2)
booster = xgb.train({"max_depth": 3}, xgb.DMatrix(data[:, 1:], label=data[:, 0]), num_boost_round=5)
os.makedirs("/opt/ml/processing/output/report", exist_ok=True)
with open("/opt/ml/processing/output/report/report.json", "w") as f:
    json.dump({"rows": len(data), "xgboost": xgb.__version__, "python": sys.executable, "argv": sys.argv[1:]}, f)
print("report written", xgb.__version__, sys.argv[1:])
