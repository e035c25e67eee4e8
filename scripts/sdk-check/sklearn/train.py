"""A scikit-learn training script as users write it for SKLearn(entry_point="train.py", source_dir=...)."""
import argparse
import glob
import os

import joblib
import numpy as np
from sklearn.ensemble import RandomForestRegressor

from helpers import load_csv  # a module of the source directory

if __name__ == "__main__":
    print("first line of train.py", flush=True)
    parser = argparse.ArgumentParser()
    parser.add_argument("--n-estimators", type=int, default=10)
    parser.add_argument("--max-depth", type=int, default=None)
    parser.add_argument("--label", type=str, default="rings")
    parser.add_argument("--model-dir", type=str, default=os.environ.get("SM_MODEL_DIR"))
    parser.add_argument("--train", type=str, default=os.environ.get("SM_CHANNEL_TRAIN"))
    args = parser.parse_args()
    print("args", vars(args))
    print("SM_HP_N-ESTIMATORS", os.environ.get("SM_HP_N-ESTIMATORS"), "SM_NUM_CPUS", os.environ["SM_NUM_CPUS"])
    X, y = load_csv(glob.glob(os.path.join(args.train, "**", "*.csv"), recursive=True))
    model = RandomForestRegressor(n_estimators=args.n_estimators, max_depth=args.max_depth, random_state=0)
    model.fit(X, y)
    rmse = float(np.sqrt(np.mean((model.predict(X) - y) ** 2)))
    print(f"train_rmse={rmse:.5f};")
    joblib.dump(model, os.path.join(args.model_dir, "model.joblib"))
    with open(os.path.join(os.environ["SM_OUTPUT_DATA_DIR"], "report.txt"), "w") as f:
        f.write(f"rmse {rmse}\n")
