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


@dataclass(eq=False, slots=True)
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


@dataclass(frozen=True)
class _Slot:
    """Where one weight (in ``get_weights()`` order) sits in a tenant's packed tensors."""

    group: int  # which packed tensor: one per dtype
    offset: int
    size: int
    shape: tuple
    position: int  # its variable's position among the graph's variables


@dataclass(eq=False)
class _Reference:
    """One architecture's reference model, built once from a model of it: it traces the
    weights' graph, answers the first-serve check and reads ``.weights.h5`` files.

    A tenant's weights are packed into one flat tensor per dtype (usually one in all):
    each tensor TensorFlow holds costs about 700 bytes beside its data, which for a
    small model's six weights is a sixth of their bytes. The graph unpacks them (slices
    and reshapes). Variables that ``get_weights`` leaves out (a Dropout's seed state)
    keep the reference's values, passed to every tenant's call alike."""

    model: keras.Model
    slots: list  # one _Slot per weight, in get_weights() order
    dtypes: list  # the dtype of each packed tensor
    fixed: dict  # graph position -> value, for variables get_weights leaves out
    input_shapes: list  # its Input shapes, batch None
    # Each weight's path in the model the architecture was first given by (the clone's
    # own names, dense_7 where the reader's model had dense, would only puzzle).
    names: list = field(default_factory=list)
    graphs: dict = field(default_factory=dict)  # input kind -> graph on weight values
    # Kinds whose graph passed a tenant's check with the perturbed probe (inputs baked in).
    probed_kinds: set = field(default_factory=set)
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
        variables = _variables(reference)
        graph_order = {id(v): i for i, v in enumerate(variables)}
        dtypes, sizes, slots = [], [], []
        for variable in reference.weights:
            dtype = str(variable.dtype)
            if dtype not in dtypes:
                dtypes.append(dtype)
                sizes.append(0)
            group = dtypes.index(dtype)
            size = int(np.prod(variable.shape, dtype=np.int64))
            position = graph_order[id(variable)]
            slots.append(_Slot(group, sizes[group], size, tuple(variable.shape), position))
            sizes[group] += size
        given = {slot.position for slot in slots}
        fixed = {
            i: tf.convert_to_tensor(v.value) for i, v in enumerate(variables) if i not in given
        }
        shapes = [(None, *t.shape[1:]) for t in _symbolic_inputs(reference)]
        names = [v.path for v in model.weights]
        return _Reference(reference, slots, dtypes, fixed, shapes, names)

    def packed(self, tenant: Any, arrays: list, source: str) -> list:
        """The tenant's arrays (in ``get_weights()`` order) packed, one flat tensor per
        dtype, each cast to its variables' dtype; a wrong count or shape names the
        tenant, the source, the weight and both shapes."""
        if len(arrays) != len(self.slots):
            raise ValueError(
                f"tenant {tenant!r}: {source} holds {len(arrays)} weight arrays, and the "
                f"architecture has {len(self.slots)} ({self._weight_list()})"
            )
        buffers = [_aligned_empty(size, dtype) for size, dtype in self._group_sizes()]
        for index, (array, slot) in enumerate(zip(arrays, self.slots, strict=True)):
            shape = tuple(np.shape(array))
            if shape != slot.shape:
                raise ValueError(
                    f"tenant {tenant!r}: weight {index} ({self.names[index]}) of {source} "
                    f"has shape {shape}, and the architecture's has {slot.shape}"
                )
            buffers[slot.group][slot.offset : slot.offset + slot.size] = np.ravel(array)
        return [_tensor_sharing(buffer) for buffer in buffers]

    def _weight_list(self) -> str:
        pairs = zip(self.names[:4], self.slots[:4], strict=True)
        shown = ", ".join(f"{name} {slot.shape}" for name, slot in pairs)
        return shown + (", ..." if len(self.slots) > 4 else "")

    def _group_sizes(self) -> list[tuple[int, str]]:
        sizes = [0] * len(self.dtypes)
        for slot in self.slots:
            sizes[slot.group] += slot.size
        return list(zip(sizes, self.dtypes, strict=True))

    def arguments(self, packed: list) -> list:
        """What the graph takes for a tenant: its packed tensors, then the fixed values."""
        return [*packed, *self.fixed.values()]

    def argument_specs(self) -> list:
        packed = [tf.TensorSpec((n,), d) for n, d in self._group_sizes()]
        return [*packed, *(tf.TensorSpec.from_tensor(t) for t in self.fixed.values())]

    def unpacked(self, arguments: list) -> list:
        """Every graph variable's value from a tenant's arguments (eagerly, for the check,
        or inside the graph): slices of the packed tensors, reshaped."""
        packed = arguments[: len(self.dtypes)]
        values = [None] * (len(self.slots) + len(self.fixed))
        for slot in self.slots:
            flat = packed[slot.group][slot.offset : slot.offset + slot.size]
            values[slot.position] = tf.reshape(flat, slot.shape)
        for (position, _), value in zip(
            self.fixed.items(), arguments[len(self.dtypes) :], strict=True
        ):
            values[position] = value
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
            return self.packed(tenant, in_order, str(path))
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
            arrays = [tf.convert_to_tensor(v.value).numpy() for v in self.loader.weights]
        return self.packed(tenant, arrays, str(path))


# TensorFlow's kernels want their buffers aligned to this many bytes (EIGEN_MAX_ALIGN_BYTES).
_ALIGNMENT = 64


def _aligned_empty(size: int, dtype: str) -> np.ndarray:
    """An uninitialised 1-D array whose data starts on a 64-byte boundary."""
    itemsize = np.dtype(dtype).itemsize
    raw = np.empty(size * itemsize + _ALIGNMENT, np.uint8)
    start = -raw.ctypes.data % _ALIGNMENT
    return raw[start : start + size * itemsize].view(dtype)


def _tensor_sharing(array: np.ndarray) -> tf.Tensor:
    """A tensor on the array's own memory, through DLPack: ``tf.constant`` copies it into
    TensorFlow's allocator, where a 21 KB tensor took 33 KB of resident memory on this
    machine's CPU build, against 22 KB shared (both measured over 2,000 tensors). Where
    DLPack is refused (an unaligned or unsupported array), a copy."""
    try:
        return tf.experimental.dlpack.from_dlpack(array.__dlpack__())
    except Exception:  # any refusal: the copy is right, only larger
        return tf.constant(array)


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


def _eager_on_values(reference: _Reference, arguments: list, x: Any) -> Any:
    """The reference model's own call on a tenant's weights: the route of a tenant whose
    weights the graph does not serve as the model's call does."""
    from .state_checks import _weights_defined_output, _WeightsSnapshot

    model = reference.model
    snapshot = _WeightsSnapshot(_variables(model), reference.unpacked(arguments))
    return _weights_defined_output(model, x, snapshot)
