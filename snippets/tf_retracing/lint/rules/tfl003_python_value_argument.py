"""TFL003: a Python number, bool or string that changes between calls passed to a
tf.function: one trace per value."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tf_retracing.lint.facts import ModuleFacts
from tf_retracing.lint.rule import Rule
from tf_retracing.lint.varying import varying_values


def check(facts: ModuleFacts) -> Iterator[tuple[ast.AST, str]]:
    for call, traced, ctx in facts.traced_calls():
        if traced.has_signature:
            continue  # a signature converts the value to a tensor
        values = varying_values(facts)
        varying = values.names(ctx)
        if not varying:
            continue
        for argument in [*call.args, *(k.value for k in call.keywords)]:
            found = values.classify(argument, ctx, varying)
            if found.scalar and found.varying is not None:
                yield argument, _message(found.varying, traced.name, ctx)


def _message(name: str, function: str, ctx) -> str:
    when = "every iteration" if ctx.loops else f"every call of {ctx.scope.name}()"
    source = name if name == "a random draw" else f"`{name}`"
    return (
        f"a Python value that changes {when} ({source}) is passed to {function}(): "
        "one trace per value"
    )


RULE = Rule(
    code="TFL003",
    name="python-value-argument",
    summary="A Python number, bool or string that changes per iteration passed to a tf.function.",
    fix="Pass tf.constant(value) (with the dtype the function needs), or an input_signature.",
    page="tensor-vs-python/#python-numbers-versus-tfconstant",
    check=check,
    found=(
        """
@tf.function
def repeat(x, times):
    return x * times
for times in [1, 2, 3, 4]:
    repeat(tf.ones([2]), times)
""",
        """
@tf.function
def step(x, lr):
    return x * lr
for i, batch in enumerate(batches):
    step(batch, lr=0.1 / (1 + i))
""",
        """
class Trainer:
    @tf.function
    def train_step(self, x, step):
        return x * step
    def run(self, batches):
        step = 0
        while step < 10:
            self.train_step(batches, step)
            step += 1
""",
        # a float hyperparameter decayed in the loop
        """
@tf.function
def step(x, lr):
    return x * lr
lr = 0.1
for batch in batches:
    step(batch, lr)
    lr *= 0.9
""",
        # a flag flipped on every iteration
        """
@tf.function
def step(x, train_generator):
    return x
train_generator = True
for batch in batches:
    step(batch, train_generator)
    train_generator = not train_generator
""",
        # a flag computed from the epoch
        """
@tf.function
def step(x, warmup):
    return x
for epoch in range(10):
    step(tf.ones([2]), warmup=epoch < 3)
""",
        # the epoch reaches the tf.function through a helper of the file
        """
@tf.function
def train_step(x, epoch):
    return x * epoch
def train_one_epoch(data, epoch):
    for batch in data:
        train_step(batch, epoch)
for epoch in range(5):
    train_one_epoch(data, epoch)
""",
        # a tf.function applied by assignment, called through functools.partial
        """
import functools
def scale(x, factor):
    return x * factor
scale_graph = tf.function(scale)
scale_ones = functools.partial(scale_graph, tf.ones([2]))
for i in range(3):
    scale_ones(float(i))
""",
        # an instance of the file's class whose method is a tf.function
        """
class Model:
    @tf.function
    def __call__(self, x, temperature):
        return x / temperature
model = Model()
for t in range(1, 5):
    model(tf.ones([2]), t / 4)
""",
    ),
    clean=(
        """
@tf.function
def repeat(x, times):
    return x * times
for times in [1, 2, 3, 4]:
    repeat(tf.ones([2]), tf.constant(times))
""",
        # a signature converts the Python int to a tensor
        """
@tf.function(input_signature=[tf.TensorSpec([], tf.int32)])
def double(n):
    return n * 2
for n in range(4):
    double(n)
""",
        # flags listed on purpose: one graph each
        """
@tf.function
def step(x, training):
    return x
for training in [True, False]:
    step(tf.ones([2]), training)
""",
        # an unknown callable, and a loop over data
        """
for i in range(3):
    model(tf.ones([2]), i)
@tf.function
def f(x):
    return x
for batch in dataset:
    f(batch)
""",
        # a value that is the same on every iteration
        """
@tf.function
def step(x, lr):
    return x * lr
lr = 0.1
for batch in batches:
    step(batch, lr)
""",
        # a running total of tensors is not a Python number
        """
@tf.function
def step(x, total):
    return x + total
total = 0.0
for batch in batches:
    total += step(batch, tf.constant(total))
""",
    ),
)
