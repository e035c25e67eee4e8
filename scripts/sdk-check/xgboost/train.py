"""XGBoost script mode: sagemaker.xgboost.XGBoost(entry_point="train.py", framework_version="1.7-1")."""
import argparse
import glob
import os

import numpy as np
import xgboost as xgb

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--num_round", type=int, default=10)
    parser.add_argument("--max_depth", type=int, default=3)
    parser.add_argument("--eta", type=float, default=0.3)
    args, _ = parser.parse_known_args()
    (path,) = glob.glob(os.path.join(os.environ["SM_CHANNEL_TRAIN"], "**", "*.csv"), recursive=True)
    data = np.loadtxt(path, delimiter=",", ndmin=2)
    dtrain = xgb.DMatrix(data[:, 1:], label=data[:, 0])
    booster = xgb.train({"max_depth": args.max_depth, "eta": args.eta, "objective": "reg:squarederror"},
                        dtrain, num_boost_round=args.num_round, evals=[(dtrain, "train")])
    booster.save_model(os.path.join(os.environ["SM_MODEL_DIR"], "xgboost-model"))
