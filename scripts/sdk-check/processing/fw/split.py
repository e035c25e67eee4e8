"""FrameworkProcessor entry point: imports a sibling module of its source_dir."""
import argparse
import os

from fwhelpers import split_rows

parser = argparse.ArgumentParser()
parser.add_argument("--ratio", type=float, default=0.8)
args = parser.parse_args()
(name,) = os.listdir("/opt/ml/processing/input/raw")
with open(os.path.join("/opt/ml/processing/input/raw", name)) as f:
    rows = f.read().splitlines()
a, b = split_rows(rows, args.ratio)
os.makedirs("/opt/ml/processing/output/parts", exist_ok=True)
with open("/opt/ml/processing/output/parts/first.csv", "w") as f:
    f.write("\n".join(a) + "\n")
with open("/opt/ml/processing/output/parts/second.csv", "w") as f:
    f.write("\n".join(b) + "\n")
print("framework processor split", len(a), len(b), "cwd", os.getcwd())
