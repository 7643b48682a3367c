"""A ResNet-18-style network (conv, batch norm, relu, pooling, residual adds,
dense head) run eagerly in Ember with random weights, checked against a NumPy
implementation of the same network, with latency for batch 1 and batch 8.

    python examples/resnet.py [--image-size 224] [--batches 1 8]
"""

import argparse
import time

import numpy as np

import ember

STAGES = [(64, 1), (128, 2), (256, 2), (512, 2)]  # (channels, stride of the first block)


def init_params(rng, num_classes=1000):
    def conv(k, cin, cout):
        return (rng.standard_normal((k, k, cin, cout)) * np.sqrt(2.0 / (k * k * cin))).astype(np.float32)

    def bn(c):  # inference statistics
        return {"scale": (1 + 0.1 * rng.standard_normal(c)).astype(np.float32),
                "offset": (0.1 * rng.standard_normal(c)).astype(np.float32),
                "mean": (0.1 * rng.standard_normal(c)).astype(np.float32),
                "variance": (1 + 0.1 * rng.random(c)).astype(np.float32)}

    params = {"stem": conv(7, 3, 64), "stem_bn": bn(64), "blocks": []}
    cin = 64
    for cout, stride in STAGES:
        for block in range(2):
            s = stride if block == 0 else 1
            p = {"stride": s, "conv1": conv(3, cin, cout), "bn1": bn(cout),
                 "conv2": conv(3, cout, cout), "bn2": bn(cout)}
            if s != 1 or cin != cout:
                p["down"], p["down_bn"] = conv(1, cin, cout), bn(cout)
            params["blocks"].append(p)
            cin = cout
    params["fc_w"] = (rng.standard_normal((512, num_classes)) / np.sqrt(512)).astype(np.float32)
    params["fc_b"] = np.zeros(num_classes, np.float32)
    return params


def to_ember(tree):
    if isinstance(tree, dict):
        return {k: to_ember(v) for k, v in tree.items()}
    if isinstance(tree, list):
        return [to_ember(v) for v in tree]
    return ember.constant(tree) if isinstance(tree, np.ndarray) else tree


# --- Ember (NHWC) -----------------------------------------------------------------

EPS = 1e-5


def bn_ember(x, p):
    return ember.nn.batch_normalization(x, p["mean"], p["variance"], p["offset"], p["scale"], EPS)


def block_ember(x, p):
    y = ember.nn.conv2d(x, p["conv1"], strides=p["stride"], padding="SAME")
    y = ember.nn.relu(bn_ember(y, p["bn1"]))
    y = bn_ember(ember.nn.conv2d(y, p["conv2"], strides=1, padding="SAME"), p["bn2"])
    if "down" in p:
        x = bn_ember(ember.nn.conv2d(x, p["down"], strides=p["stride"], padding="SAME"), p["down_bn"])
    return ember.nn.relu(x + y)


def resnet_ember(x, params):
    x = ember.nn.conv2d(x, params["stem"], strides=2, padding="SAME")
    x = ember.nn.relu(bn_ember(x, params["stem_bn"]))
    x = ember.nn.max_pool2d(x, ksize=3, strides=2, padding="SAME")
    for p in params["blocks"]:
        x = block_ember(x, p)
    x = ember.reduce_mean(x, axis=[1, 2])  # global average pooling
    return ember.nn.bias_add(ember.matmul(x, params["fc_w"]), params["fc_b"])


# --- NumPy reference ----------------------------------------------------------------

def same_pads(size, k, s):
    out = -(-size // s)
    total = max((out - 1) * s + k - size, 0)
    return total // 2, total - total // 2


def conv_np(x, w, stride):
    k = w.shape[0]
    (t, b), (l, r) = same_pads(x.shape[1], k, stride), same_pads(x.shape[2], k, stride)
    x = np.pad(x, ((0, 0), (t, b), (l, r), (0, 0)))
    win = np.lib.stride_tricks.sliding_window_view(x, (k, k), axis=(1, 2))[:, ::stride, ::stride]
    # win: [N, H', W', C, k, k] -> contract C, kh, kw with w [kh, kw, C, O]
    return np.tensordot(win, w.transpose(2, 0, 1, 3), axes=([3, 4, 5], [0, 1, 2])).astype(np.float32)


def bn_np(x, p):
    return (x - p["mean"]) / np.sqrt(p["variance"] + EPS) * p["scale"] + p["offset"]


def maxpool_np(x, k=3, s=2):
    (t, b), (l, r) = same_pads(x.shape[1], k, s), same_pads(x.shape[2], k, s)
    x = np.pad(x, ((0, 0), (t, b), (l, r), (0, 0)), constant_values=-np.inf)
    win = np.lib.stride_tricks.sliding_window_view(x, (k, k), axis=(1, 2))[:, ::s, ::s]
    return win.max(axis=(-2, -1))


def resnet_numpy(x, params):
    x = np.maximum(bn_np(conv_np(x, params["stem"], 2), params["stem_bn"]), 0)
    x = maxpool_np(x)
    for p in params["blocks"]:
        y = np.maximum(bn_np(conv_np(x, p["conv1"], p["stride"]), p["bn1"]), 0)
        y = bn_np(conv_np(y, p["conv2"], 1), p["bn2"])
        if "down" in p:
            x = bn_np(conv_np(x, p["down"], p["stride"]), p["down_bn"])
        x = np.maximum(x + y, 0)
    return x.mean(axis=(1, 2)) @ params["fc_w"] + params["fc_b"]


def latency(fn, repeats):
    fn()  # warm-up
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--image-size", type=int, default=224)
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 8])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)

    rng = np.random.default_rng(0)
    params_np = init_params(rng)
    params = to_ember(params_np)
    results = {}
    for batch in args.batches:
        x_np = rng.standard_normal((batch, args.image_size, args.image_size, 3)).astype(np.float32)
        x = ember.constant(x_np)
        logits = resnet_ember(x, params).numpy()
        expected = resnet_numpy(x_np, params_np)
        np.testing.assert_allclose(logits, expected, rtol=2e-3, atol=2e-3)
        t_ember = latency(lambda: resnet_ember(x, params).numpy(), args.repeats)
        t_numpy = latency(lambda: resnet_numpy(x_np, params_np), 1)
        results[batch] = (t_ember, t_numpy)
        print(f"ResNet-18, batch {batch}, {args.image_size}x{args.image_size}: logits {logits.shape}, "
              f"matches NumPy; ember {t_ember * 1e3:.1f} ms, numpy {t_numpy * 1e3:.1f} ms")
    return results


if __name__ == "__main__":
    main()
