#!/usr/bin/env python3
"""The PyTorch eager baseline of lesson 13: the same MLP, data, batch, optimizer and precision.

  python3 tools/torch_mlp.py [--epochs 20] [--batch 128] [--hidden 256,256]
                             [--precision fp32|bf16|fp16] [--optimizer sgd|adamw] [--data DIR]

Reads the same IDX .gz files, normalises the same way ((x / 255 - 0.2860) / 0.3530), keeps the
training set on the GPU and gathers each shuffled batch there (as the lesson's trainer does),
trains 784 -> hidden -> 10 with ReLU and softmax cross-entropy, and prints one line per epoch
with samples/s (timed with torch.cuda.synchronize around the epoch) and the test accuracy at
the end. Mixed precision is torch.autocast with fp32 master weights; fp16 adds a GradScaler.
The lesson's target is >= 1.5x this script's samples/s on one H100 (./course train with the same
flags). Not run in the session that wrote it (no PyTorch, no GPU there).
"""
import argparse
import gzip
import struct
import time

import numpy as np
import torch


def load_idx(path, magic):
    with gzip.open(path, "rb") as f:
        data = f.read()
    got, = struct.unpack(">I", data[:4])
    if got != magic:
        raise SystemExit(f"{path}: bad magic number {got}, want {magic}")
    dims = 3 if magic == 2051 else 1
    shape = struct.unpack(">" + "I" * dims, data[4:4 + 4 * dims])
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


def load_split(d, split, device):
    x = load_idx(f"{d}/{split}-images-idx3-ubyte.gz", 2051).reshape(-1, 784)
    y = load_idx(f"{d}/{split}-labels-idx1-ubyte.gz", 2049)
    x = (torch.from_numpy(x.astype(np.float32)).to(device) / 255.0 - 0.2860) / 0.3530
    return x, torch.from_numpy(y.astype(np.int64)).to(device)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--batch", type=int, default=128)
    p.add_argument("--hidden", default="256,256")
    p.add_argument("--precision", choices=["fp32", "bf16", "fp16"], default="fp32")
    p.add_argument("--optimizer", choices=["sgd", "adamw"], default="sgd")
    p.add_argument("--lr", type=float, default=None)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()

    torch.manual_seed(a.seed)
    torch.backends.cuda.matmul.allow_tf32 = False  # true FP32, as the lesson's cuBLAS calls
    dev = torch.device("cuda")
    xtr, ytr = load_split(a.data, "train", dev)
    xte, yte = load_split(a.data, "t10k", dev)
    widths = [784] + [int(w) for w in a.hidden.split(",") if w] + [10]
    layers = []
    for i in range(len(widths) - 1):
        layers.append(torch.nn.Linear(widths[i], widths[i + 1]))
        if i + 2 < len(widths):
            layers.append(torch.nn.ReLU())
    model = torch.nn.Sequential(*layers).to(dev)
    if a.optimizer == "sgd":
        opt = torch.optim.SGD(model.parameters(), lr=a.lr or 0.05, momentum=0.9)
    else:
        opt = torch.optim.AdamW(model.parameters(), lr=a.lr or 0.001, weight_decay=0.01)
    dtype = {"fp32": None, "bf16": torch.bfloat16, "fp16": torch.float16}[a.precision]
    scaler = torch.cuda.amp.GradScaler(enabled=a.precision == "fp16")
    loss_fn = torch.nn.CrossEntropyLoss()
    n = xtr.shape[0] // a.batch * a.batch  # full batches only, as the lesson drops the rest

    for epoch in range(a.epochs):
        perm = torch.randperm(xtr.shape[0], device=dev)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for i in range(0, n, a.batch):
            idx = perm[i:i + a.batch]
            with torch.autocast("cuda", dtype=dtype, enabled=dtype is not None):
                loss = loss_fn(model(xtr[idx]), ytr[idx])
            opt.zero_grad(set_to_none=True)
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
        torch.cuda.synchronize()
        dt = time.perf_counter() - t0
        print(f"epoch {epoch + 1:3d}  loss {loss.item():.4f}  {n / dt:10.0f} samples/s")
    with torch.no_grad(), torch.autocast("cuda", dtype=dtype, enabled=dtype is not None):
        right = (model(xte).argmax(1) == yte).sum().item()
    print(f"test accuracy {100.0 * right / xte.shape[0]:.2f}% ({right} of {xte.shape[0]})")


if __name__ == "__main__":
    main()
