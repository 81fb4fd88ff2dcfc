"""How fast the linter is on one large file: generated modules of 500 and 2,000 functions
(training steps, Keras models, classes, loops, comprehensions, as real scripts mix them),
timed in this process, on one core, best of several runs."""

from __future__ import annotations

import gc
import time

from tf_retracing.lint import lint_source

HEADER = "import numpy as np\nimport tensorflow as tf\nimport keras\n\n"
_TEMPLATES = (
    """
@tf.function
def train_step_{i}(model, x, y, lr):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    if lr > 0:
        loss = loss * lr
    return loss, grads


def fit_{i}(model, dataset, epochs=3):
    history = []
    for epoch in range(epochs):
        for step, (x, y) in enumerate(dataset):
            loss, _ = train_step_{i}(model, x, y, tf.constant(0.01))
            history.append(float(loss))
    return history
""",
    """
def build_model_{i}(units=32):
    inputs = keras.Input(shape=(16,))
    hidden = keras.layers.Dense(units, activation="relu")(inputs)
    outputs = keras.layers.Dense(1)(hidden)
    return keras.Model(inputs, outputs)


class Trainer{i}:
    def __init__(self, units):
        self.model = build_model_{i}(units)
        self.optimizer = keras.optimizers.Adam(1e-3)
        self.step = tf.function(self._step)

    def _step(self, x):
        return self.model(x, training=False)

    def run(self, batches):
        return [self.step(tf.convert_to_tensor(b)) for b in batches]
""",
    """
def preprocess_{i}(images, size=224):
    images = tf.image.resize(images, [size, size])
    images = tf.cast(images, tf.float32) / 255.0
    mean = np.array([0.485, 0.456, 0.406], dtype=np.float32)
    return (images - mean) / np.float32(0.229)


scores_{i} = {{name: len(name) * 2 for name in ["a", "bb", "ccc"] if name}}
while_total_{i} = 0
count_{i} = 0
while count_{i} < 3:
    while_total_{i} += count_{i} ** 2
    count_{i} += 1
""",
    # notebook-style top level: the same names reused by every cell's loop
    """
@tf.function
def scale_{i}(x, factor):
    return x * factor


x = tf.ones([4])
lr = 0.1
for i in range(3):
    x = scale_{i}(x, tf.constant(lr))
    lr = lr * 0.5
model = keras.Sequential([keras.layers.Dense(1)])
predictions = model(x[None, :], training=False)
""",
)


def generated_module(functions: int) -> str:
    """A module with this many top-level functions (each template has one to three)."""
    parts, made, index = [HEADER], 0, 0
    while made < functions:
        template = _TEMPLATES[index % len(_TEMPLATES)]
        parts.append(template.format(i=index))
        made += template.count("\ndef ") + template.count("\n    def ")
        index += 1
    return "".join(parts)


def time_lint(source: str, repeats: int = 5) -> float:
    """The fastest of several runs of the whole linter on one source, in seconds."""
    best = float("inf")
    for _ in range(repeats):
        gc.collect()
        started = time.perf_counter()
        lint_source(source, "generated.py")
        best = min(best, time.perf_counter() - started)
    return best


def measure_speed(small: int = 500, large: int = 2000) -> dict:
    rows = []
    for functions in (small, large):
        source = generated_module(functions)
        seconds = time_lint(source)
        lines = source.count("\n")
        rows.append(
            {
                "functions": functions,
                "lines": lines,
                "seconds": round(seconds, 3),
                "lines_per_second": round(lines / seconds),
            }
        )
    return {"modules": rows, "ratio": round(rows[1]["seconds"] / rows[0]["seconds"], 2)}
