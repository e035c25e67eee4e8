#!/bin/bash
# Runs every script against $SLIPWAY_URL (default :4870) with the SDK command line in $SDK_PYTHON
# (e.g. "env PYTHONPATH=/path/site:/path/sagemaker-python-sdk/src /usr/bin/python3"); logs in $LOGS.
set -u
cd "$(dirname "$0")"
export SLIPWAY_URL=${SLIPWAY_URL:-http://127.0.0.1:4870} AWS_ENDPOINT_URL=${SLIPWAY_URL:-http://127.0.0.1:4870}
export SAGEMAKER_SUPPRESS_V2_WARNING=1
LOGS=${LOGS:-/tmp/sdk-logs}
mkdir -p "$LOGS"
for s in a_sklearn b_xgboost c_pytorch d_processing e_experiments f_extras h_mlops; do
  timeout 900 $SDK_PYTHON $s.py > "$LOGS/$s.log" 2>&1
  echo "$s: exit $? $(grep -h ' DONE' "$LOGS/$s.log" | tail -1)"
done
