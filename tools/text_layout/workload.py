"""What record.sh runs to find the functions to gather (Note [Text layout]
in cmake/text_layout.ld): `import ember`, then, in phases, the ops most
programs start with, a TensorFlow-style training loop, the benchmarks' MLP
training step, a small ResNet-50 inference and a traced function. The script orders functions by first call, so import's
come first, then each phase's new ones."""
import ctypes

import numpy as np

mark = ctypes.CDLL(None).ember_text_layout_mark  # hook.c, preloaded
import ember  # noqa: E402

from benchmarks.suite.models import mlp, resnet50  # noqa: E402
from benchmarks.suite.peers import Peers  # noqa: E402

mark()
x = ember.constant(np.ones((4, 4), np.float32))
y = ember.nn.relu(ember.matmul(x, x) - 10.0) + 1.0
float(ember.reduce_sum(y))
y.numpy()
repr(y)
a = ember.constant([1.0])
(a + a).numpy()
mark()
# A TensorFlow-style training loop: variables, a tape, an optimizer.
variables = [ember.Variable(np.full(shape, 0.01, np.float32)) for shape in [(784, 128), (128,), (128, 10)]]
optimizers = [ember.optimizers.SGD(0.01), ember.optimizers.Adam(0.001)]
features = ember.constant(np.ones((32, 784), np.float32))
labels = ember.constant(np.arange(32) % 10)
for optimizer in optimizers:
    for _ in range(2):
        with ember.GradientTape() as tape:
            hidden = ember.nn.relu(ember.matmul(features, variables[0]) + variables[1])
            logits = ember.matmul(hidden, variables[2])
            loss = ember.reduce_mean(ember.nn.sparse_softmax_cross_entropy_with_logits(labels, logits))
            loss += ember.reduce_mean(ember.square(logits - 1.0))
        optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
    float(loss)
for v in variables:
    v.assign_sub(0.01 * v)
mark()
F = Peers(["ember"]).get("ember")
rng = np.random.default_rng(784)
params = F.params(mlp.init(rng))
inputs, neg_target = F.tensor(mlp.example_input(rng, 64)), F.tensor(mlp.example_target(rng, 64))
for _ in range(2):
    loss, params = mlp.train_step(F, params, inputs, neg_target)
    F.finish(params)
    F.to_numpy(loss)
mark()
weights, image = F.params(resnet50.init(rng)), F.image(resnet50.example_input(rng, 1, 64))
F.to_numpy(F.finish(resnet50.forward(F, weights, image)))
mark()


@ember.function
def affine(t):
    return t * 2.0 + 1.0


affine(a).numpy()
affine(a).numpy()
mark()
