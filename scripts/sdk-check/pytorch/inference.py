"""Inference script for the PyTorch model: model_fn loads the TorchScript model the training wrote."""
import os

import torch


def model_fn(model_dir):
    model = torch.jit.load(os.path.join(model_dir, "model.pt"), map_location="cpu")
    model.eval()
    return model
