"""Tenants held as weights: a tenant is its weight arrays (or the ``.weights.h5`` file they
are read from on its first request), served through its architecture's shared graph with
the weights as the graph's arguments. No Keras model is kept per tenant: one reference
model per architecture, built once, traces the graph and answers the first-serve check.
"""

from __future__ import annotations

import os
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import keras
import numpy as np
import tensorflow as tf

from .inputs import _as_tensor, _describe_inputs, _describe_leaves, _flatten, _symbolic_inputs
from .own_route import _variables

WEIGHTS_SUFFIX = ".weights.h5"  # what keras.Model.load_weights reads


@dataclass(eq=False)
class _WeightsTenant:
    """What the predictor holds for one tenant: its architecture's key, and its weights in
    the graph's order (trainable, then non-trainable), or the file they are read from."""

    key: str
    values: list | None  # None until read from ``path``
    path: Path | None = None
    graphs: dict = field(default_factory=dict)  # input kind -> graph verified for it
    exact_kinds: set = field(default_factory=set)
    # On the eager route: the weights did not give the graph's output (named in reason).
    reason: str | None = None


@dataclass(eq=False)
class _Reference:
    """One architecture's reference model, built once from a model of it: it traces the
    weights' graph, answers the first-serve check and reads ``.weights.h5`` files."""

    model: keras.Model
    # get_weights() order -> position among the graph's variables; variables that
    # get_weights leaves out (a Dropout's seed state) keep the reference's value.
    positions: list
    fixed: list  # the graph's variables' values where no weight array gives them
    input_shapes: list  # its Input shapes, batch None
    graphs: dict = field(default_factory=dict)  # input kind -> graph on weight values
    loader: keras.Model | None = None  # where files are read, made on first need
    # Where a .weights.h5 file of this architecture keeps each weight (dataset path ->
    # position in get_weights order), learnt from Keras on first need; None: no layout
    # could be learnt, and Keras's load_weights reads every file.
    layout: dict | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    @staticmethod
    def of(model: keras.Model) -> _Reference:
        reference = keras.models.clone_model(model)
        reference.dtype_policy = model.dtype_policy  # as _Architecture.build does
        graph_order = {id(v): i for i, v in enumerate(_variables(reference))}
        positions = [graph_order[id(v)] for v in reference.weights]
        fixed = [tf.convert_to_tensor(v.value) for v in _variables(reference)]
        shapes = [(None, *t.shape[1:]) for t in _symbolic_inputs(reference)]
        return _Reference(reference, positions, fixed, shapes)

    def in_graph_order(self, tenant: Any, arrays: list, source: str) -> list:
        """The tenant's arrays (in ``get_weights()`` order) as tensors in the graph's
        order, each cast to its variable's dtype; a wrong count or shape names the tenant,
        the source, the weight and both shapes."""
        weights = self.model.weights
        if len(arrays) != len(weights):
            raise ValueError(
                f"tenant {tenant!r}: {source} holds {len(arrays)} weight arrays, and the "
                f"architecture has {len(weights)} ({_weight_list(weights)})"
            )
        values = list(self.fixed)
        for index, (array, variable) in enumerate(zip(arrays, weights, strict=True)):
            shape = tuple(np.shape(array))
            if shape != tuple(variable.shape):
                raise ValueError(
                    f"tenant {tenant!r}: weight {index} ({variable.path}) of {source} has "
                    f"shape {shape}, and the architecture's has {tuple(variable.shape)}"
                )
            values[self.positions[index]] = tf.constant(np.asarray(array), dtype=variable.dtype)
        return values

    def read(self, tenant: Any, path: Path) -> list:
        """The weights of a ``.weights.h5`` file in the graph's order: read straight from
        the file where it has the layout Keras gives this architecture's files (learnt
        once, from a file Keras wrote), else read by Keras into a loader model.

        Keras's ``load_weights`` walks the model and assigns every variable, tens of
        times longer than reading the arrays (38 ms against 1.2 for the MLP of the
        benchmarks, on a busy two-core machine); a file that is not laid out as expected
        goes to Keras, whose error names what does not fit."""
        with self.lock:
            if self.loader is None:
                self.loader = keras.models.clone_model(self.model)
                self.loader.dtype_policy = self.model.dtype_policy
                self.layout = _file_layout(self.loader)
        arrays = _datasets(tenant, path) if self.layout is not None else None
        if arrays is not None and set(arrays) == set(self.layout):
            in_order = [None] * len(self.layout)
            for name, index in self.layout.items():
                in_order[index] = arrays[name]
            return self.in_graph_order(tenant, in_order, str(path))
        return self._read_with_keras(tenant, path)

    def _read_with_keras(self, tenant: Any, path: Path) -> list:
        """Read by Keras into the loader model. The values read stay as they were when
        the next file is read: TensorFlow gives a variable a new buffer on assignment
        while a tensor read from it is alive."""
        with self.lock:
            try:
                self.loader.load_weights(path)
            except Exception as error:  # Keras's errors differ by cause; each is named
                raise ValueError(
                    f"tenant {tenant!r}: cannot read {path} into its architecture: "
                    f"{_first_sentences(error)}"
                ) from error
            values = list(self.fixed)
            for index, variable in enumerate(self.loader.weights):
                values[self.positions[index]] = tf.convert_to_tensor(variable.value)
            return values


def _file_layout(loader: keras.Model) -> dict | None:
    """Where Keras's ``save_weights`` puts each of this architecture's weights: every
    weight filled with its own position (plus one), saved by Keras and read back. None
    where a weight cannot carry its position exactly (empty, not numeric, too many
    weights for its dtype) or the file does not hold each weight once."""
    import h5py

    weights = loader.weights
    fills = []
    for index, variable in enumerate(weights):
        dtype = np.dtype(variable.dtype)
        fill = np.full(tuple(variable.shape), index + 1).astype(dtype)
        if fill.size == 0 or dtype.kind not in "iuf" or not np.all(fill == index + 1):
            return None
        fills.append(fill)
    loader.set_weights(fills)  # the loader's own values matter to nothing: Keras overwrites them
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"layout{WEIGHTS_SUFFIX}"
        loader.save_weights(path)
        with h5py.File(path, "r") as file:
            written = _arrays_of(file)
    layout = {}
    for name, array in written.items():
        values = np.unique(array)
        if len(values) != 1 or not float(values[0]).is_integer():
            return None
        layout[name] = int(values[0]) - 1
    if sorted(layout.values()) != list(range(len(weights))):
        return None
    return layout


def _datasets(tenant: Any, path: Path) -> dict:
    """Every array of an HDF5 file, by its path inside the file."""
    import h5py

    try:
        with h5py.File(path, "r") as file:
            return _arrays_of(file)
    except OSError as error:
        raise ValueError(f"tenant {tenant!r}: cannot read {path} as HDF5: {error}") from error


def _arrays_of(file) -> dict:
    import h5py

    arrays = {}

    def keep(name, item):
        if isinstance(item, h5py.Dataset):
            arrays[name] = item[()]

    file.visititems(keep)
    return arrays


def _weight_list(weights: list) -> str:
    shown = ", ".join(f"{v.path} {tuple(v.shape)}" for v in weights[:4])
    return shown + (", ..." if len(weights) > 4 else "")


def _first_sentences(error: Exception) -> str:
    """An error's message without the values Keras prints after it (a variable's array)."""
    text = " ".join(str(error).split())
    text = text.split(" Target variable:")[0]
    return text if len(text) <= 500 else text[:497] + "..."


def _weights_source(tenant: Any, weights: Any) -> tuple[list | None, Path | None]:
    """A tenant's weights as given: arrays, or the path of a file read on first need."""
    if isinstance(weights, str | os.PathLike):
        path = Path(weights)
        if not path.name.endswith(WEIGHTS_SUFFIX):
            raise ValueError(
                f"tenant {tenant!r}: {path} is not a Keras weights file "
                f"(its name must end in {WEIGHTS_SUFFIX}, as model.save_weights writes it)"
            )
        if not path.is_file():
            raise FileNotFoundError(f"tenant {tenant!r}: no weights file at {path}")
        return None, path
    if isinstance(weights, list | tuple):
        return list(weights), None
    raise TypeError(
        f"tenant {tenant!r}: weights must be a list of arrays (as model.get_weights() "
        f"gives) or the path of a {WEIGHTS_SUFFIX} file, got {type(weights).__name__}"
    )


def _tenant_input_mismatch(tenant: Any, reference: keras.Model, x: Any) -> str:
    """The opening of an error raised while serving a tenant."""
    try:
        got = _describe_leaves([_as_tensor(value) for value in _flatten(x)[1]])
    except ValueError:
        got = type(x).__name__
    return (
        f"tenant {tenant!r} failed on an input of {got} (it expects {_describe_inputs(reference)})"
    )


def _eager_on_values(reference: keras.Model, values: list, x: Any) -> Any:
    """The reference model's own call on a tenant's weights: the route of a tenant whose
    weights the graph does not serve as the model's call does."""
    from .state_checks import _weights_defined_output, _WeightsSnapshot

    snapshot = _WeightsSnapshot(_variables(reference), values)
    return _weights_defined_output(reference, x, snapshot)
