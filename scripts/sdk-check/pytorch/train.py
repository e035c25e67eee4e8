"""PyTorch script mode: a linear model trained on the abalone rows, saved as TorchScript."""
import argparse
import glob
import os

import numpy as np
import torch

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=50)
    parser.add_argument("--lr", type=float, default=0.05)
    args = parser.parse_args()
    torch.manual_seed(0)
    (path,) = glob.glob(os.path.join(os.environ["SM_CHANNEL_TRAINING"], "**", "*.csv"), recursive=True)
    data = np.loadtxt(path, delimiter=",", ndmin=2)
    X = torch.tensor(data[:, 1:], dtype=torch.float32)
    y = torch.tensor(data[:, :1], dtype=torch.float32)
    model = torch.nn.Linear(X.shape[1], 1)
    opt = torch.optim.SGD(model.parameters(), lr=args.lr)
    for epoch in range(args.epochs):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(X), y)
        loss.backward()
        opt.step()
    print(f"epoch={args.epochs} loss={loss.item():.4f}")
    torch.jit.script(model).save(os.path.join(os.environ["SM_MODEL_DIR"], "model.pt"))
