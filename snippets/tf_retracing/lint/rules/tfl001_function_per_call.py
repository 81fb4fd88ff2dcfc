"""TFL001: a new tf.function created and called on every iteration or every call."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tf_retracing.lint.context import Context
from tf_retracing.lint.facts import ModuleFacts
from tf_retracing.lint.rule import Rule
from tf_retracing.lint.syntax import children

# Calls that keep a function for later instead of running it.
_KEEPERS = frozenset(
    {"append", "add", "extend", "insert", "setdefault", "update", "register", "put", "partial"}
)


def check(facts: ModuleFacts) -> Iterator[tuple[ast.AST, str]]:
    traced_definitions = {id(t.definition) for t in facts.traced_bodies()}
    for node, name, closure, ctx in _creations(facts):
        if ctx.function is None and not ctx.loops:
            continue  # created once, at module or class level
        if ctx.function is not None and id(ctx.function) in traced_definitions:
            continue  # created while tracing another tf.function: once per trace
        if not _called_where_created(facts, name, ctx):
            continue  # stored or returned: a factory, whose result may be called once
        read = _configuration_reads(facts, node, closure)
        if _closes_over_a_configuration(facts, read, ctx):
            continue  # one function per configuration of a listed sweep, on purpose
        if ctx.loops:
            yield node, "a new tf.function is created and called on every iteration"
        elif _made_per_configuration(facts, read, node, ctx):
            continue  # a helper run once per listed configuration, its function reading it
        elif facts.runs_repeatedly(ctx):
            yield (
                node,
                f"a new tf.function is created and called on every call of "
                f"{ctx.scope.name}(), which runs in a loop",
            )


def _creations(facts: ModuleFacts) -> Iterator[tuple[ast.AST, str | None, ast.AST | None, Context]]:
    """(node, the name it is bound to, the function it traces, context) for each place a
    new tf.function comes into being: a decorated def, tf.function(g), or a call of the
    file's function that returns a new one."""
    for definitions in facts.definitions.values():
        for definition in definitions:
            if facts.decorator_options(definition) is not None:
                ctx = facts.context(definition)
                if not isinstance(ctx.scope.node, ast.ClassDef):
                    yield definition, definition.name, definition, ctx
    for call, ctx in facts.calls:
        if facts.wrapper_call(call) is not None:
            yield call, _bound_name(facts, call), facts.wrapped_target(call, ctx), ctx
        elif (ctx.loops or ctx.function is not None) and facts.creates_tf_function(call, ctx):
            yield call, _bound_name(facts, call), None, ctx


def _bound_name(facts: ModuleFacts, call: ast.Call) -> str | None:
    parent = facts.parent(call)
    if isinstance(parent, ast.Call) and parent.func is call:
        return ""  # called at once: tf.function(f)(x)
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1:
        target = parent.targets[0]
        return target.id if isinstance(target, ast.Name) else None
    return None


def _called_where_created(facts: ModuleFacts, name: str | None, ctx) -> bool:
    """The new function is used in the scope that created it and never leaves it: called
    (there or in a function defined there), or handed to a call that runs it
    (``tf.while_loop(cond, body, ...)``, ``strategy.run(step_fn)``), not returned, stored
    or kept by a call such as ``append``."""
    if name == "":
        return True
    if name is None or name in ctx.scope.escaping:
        return False
    region = ctx.loops[-1].body if ctx.loops else getattr(ctx.scope.node, "body", [])
    used = False
    stack = list(region)
    while stack:
        current = stack.pop()
        if (
            isinstance(current, ast.Name)
            and current.id == name
            and isinstance(current.ctx, ast.Load)
        ):
            if not _runs_it(facts, current):
                return False  # returned, stored, or kept: it leaves the scope
            used = True
        stack.extend(children(current))
    return used


def _runs_it(facts: ModuleFacts, name: ast.Name) -> bool:
    """``name(...)``, or ``name`` handed to a call that does not keep it."""
    parent = facts.parent(name)
    if isinstance(parent, ast.Call):
        return parent.func is name or (name in parent.args and not _keeps(parent))
    return isinstance(parent, ast.keyword) and not _keeps(facts.parent(parent))


def _keeps(call: ast.AST) -> bool:
    """A call that stores its argument rather than running it: ``append`` and the like, or
    a class, which keeps what it is given (``keras.optimizers.Adam(learning_rate=lr)``)."""
    func = getattr(call, "func", None)
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name in _KEEPERS or name[:1].isupper()


def _configuration_reads(facts: ModuleFacts, node: ast.AST, closure: ast.AST | None) -> set[str]:
    """What the new function depends on from outside: the names its Python function reads
    (when the file defines it), those in the options and arguments of the call that makes
    it (``tf.function(f, jit_compile=use_xla)``, ``make_step(dtype)``) and in what it wraps
    (``tf.function(qnn.expectation)``, a method of the loop's item; a lambda's body aside,
    which is its closure), and, for one called at once, what that call gives it
    (``tf.function(hmc)(100, jd)``)."""
    read = _read_from_outside(closure) if closure is not None else set()
    if isinstance(node, ast.Call):
        parts = [*node.args, *(k.value for k in node.keywords)]
        runner = facts.parent(node)
        if isinstance(runner, ast.Call) and runner.func is node:
            parts += [*runner.args, *(k.value for k in runner.keywords)]
        read |= {
            n.id
            for part in parts
            if not isinstance(part, ast.Lambda)
            for n in ast.walk(part)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
        }
    return read


def _closes_over_a_configuration(facts: ModuleFacts, read: set[str], ctx: Context) -> bool:
    """The traced function reads a name bound per iteration of a loop over a literal list
    or tuple (``for dtype in (tf.float32, ...)``), or over a literal set of configurations
    combined (``itertools.product``, ``zip``, a name bound to a literal list): one function
    per listed configuration, on purpose."""
    for loop in ctx.loops:
        if not isinstance(loop, ast.For | ast.AsyncFor):
            continue
        # a literal list of data (``[tf.ones([4]), tf.zeros([4])]``) is not one of them
        if facts.is_sweep(loop, configurations=True):
            targets = {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
            if (targets | facts.loop_stores.get(id(loop), set())) & read:
                return True
    return False


def _made_per_configuration(
    facts: ModuleFacts, read: set[str], node: ast.AST, ctx: Context
) -> bool:
    """A helper that makes the tf.function runs repeatedly only because loops over listed
    configurations call it (a test's cases), and the function reads what the helper was
    given or made from it (``layer``): one function per configuration, on purpose. One
    that reads none of it could be made once, and stays a finding."""
    if facts.runs_repeatedly(ctx, count_sweeps=False, configurations=True):
        return False  # also run per item of data
    own_name = getattr(node, "name", None)
    helper_names = {name for name in ctx.scope.bindings if name != own_name}
    return bool(read & helper_names)


def _read_from_outside(function: ast.AST) -> set[str]:
    """The names a function reads that it does not bind itself (its closure's and
    globals), parameters of functions nested in it aside."""
    read = {
        n.id for n in ast.walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    }
    bound = {a.arg for a in ast.walk(function) if isinstance(a, ast.arg)}
    bound |= {
        n.id for n in ast.walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    return read - bound


RULE = Rule(
    code="TFL001",
    name="function-per-call",
    summary="A tf.function created and called in a loop, or in a function run in a loop.",
    fix="Create the tf.function once (module level or __init__) and call it from the loop.",
    page="causes/#a-new-tffunction-or-a-new-model-per-call",
    check=check,
    found=(
        """
def add_one(x):
    return x + 1
for step in range(3):
    tf.function(add_one)(tf.constant(step))
""",
        """
for step in range(3):
    @tf.function
    def add_one(x):
        return x + 1
    add_one(tf.constant(step))
""",
        """
def handle(request):
    graph = tf.function(lambda x: x * 2)
    return graph(request)
for request in requests:
    handle(request)
""",
        # the model is the same on every iteration: only the loop's data vary
        """
def train(model, data):
    for batch in data:
        tf.function(lambda x: model(x))(batch)
""",
        # a method run in a loop defines its tf.function anew on every call; self is the same
        """
class Trainer:
    def step(self, x):
        @tf.function
        def inner(y):
            return self.model(y)
        return inner(x)
trainer = Trainer()
for batch in batches:
    trainer.step(batch)
""",
        # a helper of the file that returns a new tf.function, called per iteration
        """
def make_step(model):
    return tf.function(lambda x: model(x))
for batch in batches:
    step = make_step(model)
    step(batch)
""",
        # handed to tf.while_loop, which runs it: still a new function per call
        """
def refine(limit):
    @tf.function
    def below(x):
        return x < limit
    return tf.while_loop(below, lambda x: (x + 1.0,), (tf.constant(0.0),))
for dimension in range(3):
    refine(tf.constant(5.0))
""",
        # a helper run per listed configuration whose function reads none of it: made once
        """
def solve(y0):
    @tf.function
    def derivative(y):
        return -0.5 * y
    return derivative(tf.constant(y0))
for size in (4, 8, 16):
    solve(np.ones(size, np.float32))
""",
        # a literal list that repeats an item is a stream of inputs, not of configurations
        """
def handle(request):
    normalise = tf.function(lambda x: x / 255)
    return normalise(request)
for size in (8, 8, 3):
    handle(tf.zeros([size, 4]))
""",
        # a request handler runs once per request
        """
@app.route("/predict")
def predict():
    serve = tf.function(lambda x: x * 2)
    return serve(tf.constant(1.0))
""",
    ),
    clean=(
        """
def add_one(x):
    return x + 1
add_one_graph = tf.function(add_one)
for step in range(3):
    add_one_graph(tf.constant(step))
""",
        # a factory: the function leaves the scope that made it
        """
def make(scale):
    @tf.function
    def f(x):
        return x * scale
    return f
""",
        # one function per configuration, closing over the loop variable
        """
for dtype in (tf.float32, tf.float64):
    cast = tf.function(lambda x: tf.cast(x, dtype))
    cast(tf.ones([2]))
""",
        # a test's grid of configurations: one function per case, on purpose
        """
import itertools
for dtype, shape in itertools.product((tf.float32, tf.float64), ((2,), (2, 3))):
    cast = tf.function(lambda x: tf.cast(x, dtype))
    cast(tf.ones(shape))
""",
        """
for dtype, scale in zip([tf.float32, tf.int32], [2.0, 2]):
    times = tf.function(lambda x: x * tf.cast(scale, dtype))
    times(tf.ones([2], dtype))
""",
        # a test's cases given as the tf.function's options (as with self.subTest)
        """
for jit_compile in [True, False]:
    double = tf.function(lambda x: x * 2, jit_compile=jit_compile)
    double(tf.ones([2]))
""",
        # a name bound to a literal list of cases, and a helper the loop calls
        """
CASES = [dict(units=2, activation="relu"), dict(units=3, activation=None)]

def check(case):
    layer = keras.layers.Dense(**case)
    tf.function(lambda x: layer(x))(tf.ones([1, 2]))

for case in CASES:
    check(case)
""",
        # a function called once
        """
def main():
    tf.function(lambda x: x + 1)(tf.ones([2]))
main()
""",
        # created while tracing another tf.function: once per trace
        """
@tf.function
def outer(x):
    return tf.function(lambda y: y + 1)(x)
for _ in range(3):
    outer(tf.ones([2]))
""",
        # made once per key and kept in a dictionary, then called
        """
steps = {}
for name in names:
    steps[name] = tf.function(lambda x: x * 2)
for name in names:
    steps[name](tf.ones([2]))
""",
        # a method that keeps what it made in an attribute, and returns it next time
        """
class Trainer:
    def _build(self):
        warm_up = tf.function(lambda x: x * 2)
        return warm_up(tf.ones([2]))
    def make_step(self):
        if self.step is not None:
            return self.step
        self.step = self._build()
        return self.step
    def fit(self, batches):
        for batch in batches:
            self.make_step()
""",
        # kept in a list for later: where it is called is not known here
        """
handlers = []
for name in names:
    handler = tf.function(lambda x: x * 2)
    handlers.append(handler)
""",
        # a memoized factory returns the same tf.function for the same argument
        """
import functools
@functools.lru_cache
def make_step(scale):
    return tf.function(lambda x: x * scale)
for batch in batches:
    make_step(2.0)(batch)
""",
    ),
)
