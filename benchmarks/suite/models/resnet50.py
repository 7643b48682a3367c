"""ResNet-50 (v1.5: the stride is on the 3x3 conv), NHWC, batch norm in its
inference form."""
import numpy as np

IMAGE_INPUT = True
# (width, blocks, stride of the first block); a block's output has 4 * width channels.
STAGES = [(64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)]
# (width, stride, has a projection shortcut) for each of the 16 bottleneck blocks
BLOCKS = [(width, stride if i == 0 else 1, i == 0) for width, count, stride in STAGES for i in range(count)]


def init(rng, num_classes=1000):
    def conv(k, cin, cout):  # He initialisation
        return (rng.standard_normal((k, k, cin, cout)) * np.sqrt(2.0 / (k * k * cin))).astype(np.float32)

    def bn(c, scale=1.0):
        # Random inference statistics; a small last scale in each block keeps
        # the residual sum from growing through 16 blocks.
        return {"mean": (0.1 * rng.standard_normal(c)).astype(np.float32),
                "variance": (1 + 0.1 * rng.random(c)).astype(np.float32),
                "offset": (0.1 * rng.standard_normal(c)).astype(np.float32),
                "scale": (scale * (1 + 0.1 * rng.standard_normal(c))).astype(np.float32)}

    params = {"stem": conv(7, 3, 64), "stem_bn": bn(64), "blocks": []}
    cin = 64
    for width, _, projection in BLOCKS:
        block = {"conv1": conv(1, cin, width), "bn1": bn(width), "conv2": conv(3, width, width), "bn2": bn(width),
                 "conv3": conv(1, width, 4 * width), "bn3": bn(4 * width, scale=0.2)}
        if projection:
            block["down"], block["down_bn"] = conv(1, cin, 4 * width), bn(4 * width)
        params["blocks"].append(block)
        cin = 4 * width
    params["fc_w"] = (rng.standard_normal((cin, num_classes)) / np.sqrt(cin)).astype(np.float32)
    params["fc_b"] = (0.01 * rng.standard_normal(num_classes)).astype(np.float32)
    return params


def example_input(rng, batch=1, size=224):
    return rng.standard_normal((batch, size, size, 3)).astype(np.float32)


def forward(F, p, x):
    x = F.relu(F.batch_norm(F.conv2d(x, p["stem"], 2), p["stem_bn"]))
    x = F.max_pool(x)
    for (_, stride, projection), b in zip(BLOCKS, p["blocks"]):
        y = F.relu(F.batch_norm(F.conv2d(x, b["conv1"], 1), b["bn1"]))
        y = F.relu(F.batch_norm(F.conv2d(y, b["conv2"], stride), b["bn2"]))
        y = F.batch_norm(F.conv2d(y, b["conv3"], 1), b["bn3"])
        if projection:
            x = F.batch_norm(F.conv2d(x, b["down"], stride), b["down_bn"])
        x = F.relu(F.add(x, y))
    return F.dense(F.spatial_mean(x), p["fc_w"], p["fc_b"])
