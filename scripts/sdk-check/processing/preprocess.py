"""SKLearnProcessor's script: split the raw CSV into train and test with scikit-learn."""
import argparse
import os
import sys

import pandas as pd
from sklearn.model_selection import train_test_split

parser = argparse.ArgumentParser()
parser.add_argument("--test-size", type=float, default=0.25)
args = parser.parse_args()
raw = pd.read_csv("/opt/ml/processing/input/raw/abalone.csv", header=None)
train, test = train_test_split(raw, test_size=args.test_size, random_state=0)
for name, part in (("train", train), ("test", test)):
    os.makedirs(f"/opt/ml/processing/output/{name}", exist_ok=True)
    part.to_csv(f"/opt/ml/processing/output/{name}/{name}.csv", header=False, index=False)
print(f"split {len(train)} {len(test)} with {sys.executable}")
