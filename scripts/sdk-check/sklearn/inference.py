"""Inference script for the SKLearn model: model_fn (the rest default to the toolkit's handlers)."""
import os

import joblib


def model_fn(model_dir):
    print("model_fn loading from", model_dir, os.listdir(model_dir), flush=True)
    return joblib.load(os.path.join(model_dir, "model.joblib"))
