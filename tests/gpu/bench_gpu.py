"""GPU benchmark cases of tests/gpu/run.sh: Ember eager on gpu:0 against
PyTorch eager on the same GPU, in one process, median of interleaved
rounds. Each case synchronizes at the end of a round (reading a value back),
so the time is what a program waiting for the result sees.

The model cases of the CUDA issue (ResNet-50, MLP, Transformer block) need
the GPU matmul and convolution kernels, which are not written yet; they are
listed as not run rather than timed on the CPU fallback."""

import argparse
import json
import statistics
import time

import numpy as np

import ember

NOT_RUN = ["resnet50 b1/b32 f32/f16", "mlp", "transformer block", "as functions / CUDA graphs"]


def median_us(fn, rounds=15, inner=50):
    times = []
    fn()
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(inner):
            fn()
        times.append((time.perf_counter() - start) / inner * 1e6)
    return statistics.median(times)


def cases(torch):
    out = []
    for n in (1, 1 << 20, 1 << 24):
        a = np.random.default_rng(0).standard_normal(n).astype(np.float32)
        with ember.device("gpu:0"):
            x = ember.constant(a)
            y = ember.constant(a)

        def ember_add(x=x, y=y):
            with ember.device("gpu:0"):
                z = x + y
            z.numpy() if n == 1 else ember.sync()

        row = {"case": f"add float32 n={n}, eager, synchronized", "ember_us": median_us(ember_add)}
        if torch is not None:
            tx = torch.from_numpy(a).cuda()
            ty = torch.from_numpy(a).cuda()

            def torch_add():
                z = tx + ty
                z.cpu() if n == 1 else torch.cuda.synchronize()

            row["torch_us"] = median_us(torch_add)
            row["ratio"] = row["ember_us"] / row["torch_us"]
        out.append(row)
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    try:
        import torch

        torch = torch if torch.cuda.is_available() else None
    except ImportError:
        torch = None
    rows = cases(torch)
    for row in rows:
        print(json.dumps(row))
    print("not run (no GPU kernels yet): " + ", ".join(NOT_RUN))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": ember.config.build_info().get("gpu_status"), "rows": rows, "not_run": NOT_RUN}, f,
                      indent=1)


if __name__ == "__main__":
    main()
