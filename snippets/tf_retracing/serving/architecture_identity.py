"""Architecture identity: the key under which models share one graph."""

from __future__ import annotations

import json
import sys
from typing import Any

import keras


def _position_names(model: keras.Model) -> dict[str, str]:
    return _renames(model.get_config())


def _renames(config: dict) -> dict[str, str]:
    """Each layer name of a config -> its position, the same in every instance."""
    return {name: f"layer_{i}" for i, name in enumerate(_layer_names(config))}


def architecture_key(model: keras.Model) -> str:
    """A canonical description of what the model computes, independent of its weights.

    It is the model's class and config, with every layer name replaced by its position
    (``dense_3`` in one instance is ``dense_7`` in the next, wherever the config holds
    it, dicts of inputs and outputs included) and the batch size a layer was built with
    dropped, plus the shape and dtype of every trainable and non-trainable weight.
    """
    config = model.get_config()
    canonical = _canonical(config, _renames(config))
    canonical.pop("name", None)
    key = json.dumps(
        {
            "class": f"{type(model).__module__}.{type(model).__qualname__}",
            "config": canonical,
            "trainable": _weight_specs(model.trainable_variables),
            "non_trainable": _weight_specs(model.non_trainable_variables),
        },
        sort_keys=True,
        default=repr,
    )
    # One string object per architecture: every tenant held as weights keeps its key, and
    # a config's JSON is kilobytes (3.9 KB for a small CNN, a fifth of its weights).
    return sys.intern(key)


def _layer_names(config: Any) -> list[str]:
    """Every layer name in a (possibly nested) model config, in order of appearance: the
    name of each serialized layer wherever it sits (a model's ``layers``, a wrapper's
    ``layer`` and ``backward_layer``). A serialized layer is an item of a ``layers`` list
    (an ``InputLayer`` among them) or a dict with a ``class_name`` and a ``config``
    holding ``name`` and ``trainable``, which a dtype policy's or an initializer's config
    never holds."""
    names: list[str] = []

    def visit(node: Any, listed: bool = False) -> None:
        if isinstance(node, dict):
            inner = node.get("config")
            if "class_name" in node and isinstance(inner, dict):
                name = inner.get("name")
                named = listed or "trainable" in inner
                if named and isinstance(name, str) and name not in names:
                    names.append(name)
            for key, value in node.items():
                visit(value, listed=key == "layers")
        elif isinstance(node, list | tuple):
            for value in node:
                visit(value, listed)

    visit(config)
    return names


def _canonical(config: Any, renames: dict[str, str]) -> Any:
    """Layer names replaced wherever they appear as a string; build batch sizes dropped."""
    if isinstance(config, dict):
        canonical = {key: _canonical(value, renames) for key, value in config.items()}
        if isinstance(canonical.get("build_config"), dict):
            canonical["build_config"] = _without_batch(canonical["build_config"])
        return canonical
    if isinstance(config, list | tuple):  # Keras configs hold both
        return [_canonical(value, renames) for value in config]
    if isinstance(config, str):
        return renames.get(config, config)
    return config


def _without_batch(build_config: dict) -> dict:
    """A build config's shapes without their batch size (an adapt set's row count)."""
    shape = build_config.get("input_shape")
    if isinstance(shape, list) and shape and not isinstance(shape[0], list | dict):
        return {**build_config, "input_shape": [None, *shape[1:]]}
    return build_config


def _weight_specs(variables: list) -> list[tuple[list[int], str]]:
    return [(list(v.shape), str(v.dtype)) for v in variables]
