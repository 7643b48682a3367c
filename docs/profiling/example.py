"""The program behind docs/profiling.md's trace: eager training-style steps
of a small MLP, then the same step as one @ember.function.

    python docs/profiling/example.py docs/profiling/trace.json
"""

import sys

import numpy as np

import ember

rng = np.random.default_rng(0)
x = ember.constant(rng.standard_normal((64, 256), dtype=np.float32))
w1 = ember.constant(rng.standard_normal((256, 256), dtype=np.float32) * 0.05)
w2 = ember.constant(rng.standard_normal((256, 10), dtype=np.float32) * 0.05)


def step(inputs):
    hidden = ember.nn.relu(ember.matmul(inputs, w1) + 0.1)
    logits = ember.matmul(hidden, w2)
    return ember.reduce_mean(ember.nn.softmax(logits))


fused_step = ember.function(step)
fused_step(x).numpy()  # traced before recording

with ember.profiler.trace(sys.argv[1] if len(sys.argv) > 1 else "trace.json"):
    for i in range(2):
        with ember.profiler.Trace("eager step", step_num=i):
            step(x).numpy()
    with ember.profiler.Trace("function step"):
        fused_step(x).numpy()
ember.profiler.summary(top=12)
