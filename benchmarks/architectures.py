"""Real architectures for serving: how to build one (with its own weights) and an input for
it, and where the architecture comes from. The serving corpus
(``verification/serving_corpus``) checks the predictor's answers on them and the
``serving_architectures`` scenario times it.

Every model here is built by this file's own code, following the architecture its source
describes; keras.applications models are built with ``weights=None`` at 32x32 inputs (75x75
for InceptionV3, which takes nothing smaller) and return logits (the layers of the real
network, without the download)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import keras
import numpy as np

FEATURES = 6
VOCABULARY = ["red", "green", "blue", "amber", "cyan"]


@dataclass(frozen=True)
class Architecture:
    id: str
    title: str
    source: str  # where the architecture comes from
    make: Callable[[int], Any]  # seed -> a built keras.Model with its own weights
    sample: Callable[[int, int], Any]  # (batch, seed) -> an input the model takes


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def _images(batch: int, seed: int, size: int = 32) -> np.ndarray:
    return _rng(seed).uniform(0, 255, (batch, size, size, 3)).astype("float32")


def _application(name: str, size: int = 32, **options) -> Callable[[int], Any]:
    def make(seed: int):
        import keras

        keras.utils.set_random_seed(seed)
        # Logits, not a softmax: with random weights a softmax saturates to one-hot outputs,
        # and a wrong graph or a stale layer would change nothing visible.
        application = getattr(keras.applications, name)
        return application(
            input_shape=(size, size, 3), weights=None, classifier_activation=None, **options
        )

    return make


def _seeded(build: Callable[[], Any]) -> Callable[[int], Any]:
    def make(seed: int):
        import keras

        keras.utils.set_random_seed(seed)
        return build(seed)

    return make


# --- preprocessing layers adapted on data ----------------------------------------------------


def _tabular(seed: int):
    """Numeric features by name, each standardised by a Normalization adapted on data."""

    data = _tabular_sample(200, seed)
    inputs, features = {}, []
    for name, column in data.items():
        inputs[name] = keras.Input((1,), name=name)
        normalization = keras.layers.Normalization()
        normalization.adapt(column)
        features.append(normalization(inputs[name]))
    hidden = keras.layers.Dense(16, activation="relu")(keras.layers.Concatenate()(features))
    return keras.Model(inputs, keras.layers.Dense(1, activation="sigmoid")(hidden))


def _tabular_sample(batch: int, seed: int) -> dict:
    rng = _rng(seed)
    return {
        "age": rng.normal(50, 9, (batch, 1)).astype("float32"),
        "cholesterol": rng.normal(240, 50, (batch, 1)).astype("float32"),
        "heart_rate": rng.normal(150, 23, (batch, 1)).astype("float32"),
    }


def _discretized(seed: int):

    bins = keras.layers.Discretization(num_bins=6)
    bins.adapt(_rng(seed).normal(0, 1, (300, 1)).astype("float32"))
    inputs = keras.Input((1,))
    encoded = keras.layers.CategoryEncoding(num_tokens=6, output_mode="one_hot")(bins(inputs))
    return keras.Model(inputs, keras.layers.Dense(3)(encoded))


def _column(batch: int, seed: int) -> np.ndarray:
    return _rng(seed).normal(0, 1.5, (batch, 1)).astype("float32")


def _looked_up(seed: int):

    lookup = keras.layers.StringLookup()
    lookup.adapt(np.array(VOCABULARY * 3))
    inputs = keras.Input((3,), dtype="string")
    embedded = keras.layers.Embedding(lookup.vocabulary_size(), 4)(lookup(inputs))
    return keras.Model(inputs, keras.layers.Dense(2)(keras.layers.Flatten()(embedded)))


def _colours(batch: int, seed: int) -> np.ndarray:
    return _rng(seed).choice([*VOCABULARY, "mauve"], (batch, 3))


def _vectorized(seed: int):

    vectorize = keras.layers.TextVectorization(max_tokens=40, output_sequence_length=6)
    vectorize.adapt(np.array([" ".join(VOCABULARY[i:] + VOCABULARY[:i]) for i in range(5)]))
    inputs = keras.Input((1,), dtype="string")
    embedded = keras.layers.Embedding(40, 8)(vectorize(inputs))
    pooled = keras.layers.GlobalAveragePooling1D()(embedded)
    return keras.Model(inputs, keras.layers.Dense(2)(pooled))


def _sentences(batch: int, seed: int) -> np.ndarray:
    rng = _rng(seed)
    return np.array([[" ".join(rng.choice(VOCABULARY, 4))] for _ in range(batch)])


# --- sequences, masking, attention -----------------------------------------------------------


def _masked_lstm(seed: int):

    inputs = keras.Input((7, FEATURES))
    masked = keras.layers.Masking(mask_value=0.0)(inputs)
    return keras.Model(inputs, keras.layers.Dense(2)(keras.layers.LSTM(8)(masked)))


def _padded_series(batch: int, seed: int) -> np.ndarray:
    rng = _rng(seed)
    x = rng.normal(0, 1, (batch, 7, FEATURES)).astype("float32")
    for row in range(batch):
        x[row, rng.integers(2, 7) :] = 0.0  # padded steps
    return x


def _embedding_gru(seed: int):

    inputs = keras.Input((None,), dtype="int32")
    embedded = keras.layers.Embedding(50, 8, mask_zero=True)(inputs)
    recurrent = keras.layers.Bidirectional(keras.layers.GRU(6))(embedded)
    return keras.Model(inputs, keras.layers.Dense(1)(recurrent))


def _token_ids(batch: int, seed: int) -> np.ndarray:
    rng = _rng(seed)
    ids = rng.integers(1, 50, (batch, 9)).astype("int32")
    for row in range(batch):
        ids[row, rng.integers(3, 9) :] = 0  # padding
    return ids


class PositionEmbedding(keras.layers.Layer):
    """Adds a learned embedding of each position to a sequence of token embeddings."""

    def __init__(self, length: int, width: int, **kwargs):
        super().__init__(**kwargs)
        self.length, self.width = length, width
        self.positions = keras.layers.Embedding(length, width)

    def call(self, tokens):
        return tokens + self.positions(keras.ops.arange(keras.ops.shape(tokens)[1]))

    def get_config(self):
        return {**super().get_config(), "length": self.length, "width": self.width}


def _transformer(seed: int):
    """Token and position embeddings, one encoder block (self-attention, feed-forward,
    residuals and layer normalisation), pooled into a classifier."""
    length, width = 10, 16
    tokens = keras.Input((length,), dtype="int32")
    embedded = PositionEmbedding(length, width)(keras.layers.Embedding(60, width)(tokens))
    attended = keras.layers.MultiHeadAttention(num_heads=2, key_dim=8)(embedded, embedded)
    block = keras.layers.LayerNormalization(epsilon=1e-6)(embedded + attended)
    forward = keras.layers.Dense(32, activation="relu")(block)
    forward = keras.layers.Dense(width)(forward)
    block = keras.layers.LayerNormalization(epsilon=1e-6)(block + forward)
    pooled = keras.layers.GlobalAveragePooling1D()(block)
    return keras.Model(tokens, keras.layers.Dense(2, activation="softmax")(pooled))


def _ten_tokens(batch: int, seed: int) -> np.ndarray:
    return _rng(seed).integers(0, 60, (batch, 10)).astype("int32")


def _variable_length_conv(seed: int):

    inputs = keras.Input((None, FEATURES))
    hidden = keras.layers.Conv1D(12, 3, padding="same", activation="relu")(inputs)
    return keras.Model(inputs, keras.layers.Dense(2)(keras.layers.GlobalMaxPooling1D()(hidden)))


def _series(batch: int, seed: int) -> np.ndarray:
    rng = _rng(seed)
    return rng.normal(0, 1, (batch, int(rng.integers(5, 20)), FEATURES)).astype("float32")


# --- nesting and subclassing ---------------------------------------------------------------


def _siamese(seed: int):
    """One encoder model applied to both inputs, its distance fed to a head."""

    image = keras.Input((12, 12, 1))
    features = keras.layers.Conv2D(4, 3, activation="relu")(image)
    features = keras.layers.BatchNormalization()(features)
    encoder = keras.Model(image, keras.layers.GlobalAveragePooling2D()(features))
    left, right = keras.Input((12, 12, 1), name="left"), keras.Input((12, 12, 1), name="right")
    distance = keras.layers.Subtract()([encoder(left), encoder(right)])
    return keras.Model({"left": left, "right": right}, keras.layers.Dense(1)(distance))


def _pairs(batch: int, seed: int) -> dict:
    rng = _rng(seed)
    return {
        side: rng.uniform(0, 1, (batch, 12, 12, 1)).astype("float32") for side in ("left", "right")
    }


def _subclassed(seed: int):
    model = ResidualMLP()
    model(np.zeros((1, FEATURES), "float32"))
    return model


def _subclassed_functional(seed: int):
    return FunctionalSubclass()


def _rows(batch: int, seed: int) -> np.ndarray:
    return _rng(seed).normal(0, 1, (batch, FEATURES)).astype("float32")


class ResidualMLP(keras.Model):
    """A subclassed model: a residual dense block written in ``call``."""

    def __init__(self):
        super().__init__()
        self.inner = keras.layers.Dense(FEATURES, activation="gelu")
        self.norm = keras.layers.LayerNormalization()
        self.head = keras.layers.Dense(3)

    def call(self, x, training=False):
        return self.head(self.norm(x + self.inner(x)))


class FunctionalSubclass(keras.Model):
    """A subclass of Model built with the functional constructor."""

    def __init__(self):
        inputs = keras.Input((FEATURES,))
        hidden = keras.layers.Dense(8, activation="relu")(inputs)
        super().__init__(inputs, keras.layers.Dense(2)(hidden))


KERAS_APPLICATIONS = "https://keras.io/api/applications/"
INCEPTION_SIZE = 75  # keras.applications.InceptionV3 refuses inputs under 75x75
ARCHITECTURES = [
    Architecture(
        "mobilenet_v2",
        "MobileNetV2 (alpha 0.35)",
        KERAS_APPLICATIONS,
        _application("MobileNetV2", alpha=0.35),
        lambda b, s: _images(b, s),
    ),
    Architecture(
        "mobilenet_v3_small",
        "MobileNetV3Small",
        KERAS_APPLICATIONS,
        _application("MobileNetV3Small"),
        lambda b, s: _images(b, s),
    ),
    Architecture(
        "efficientnet_b0",
        "EfficientNetB0 (Rescaling and Normalization inside)",
        KERAS_APPLICATIONS,
        _application("EfficientNetB0"),
        lambda b, s: _images(b, s),
    ),
    Architecture(
        "densenet121",
        "DenseNet121",
        KERAS_APPLICATIONS,
        _application("DenseNet121"),
        lambda b, s: _images(b, s),
    ),
    Architecture(
        "resnet50",
        "ResNet50",
        KERAS_APPLICATIONS,
        _application("ResNet50"),
        lambda b, s: _images(b, s),
    ),
    Architecture(
        "tabular_normalization",
        "Named numeric features, Normalization adapted per feature",
        "https://keras.io/examples/structured_data/structured_data_classification_from_scratch/",
        _seeded(_tabular),
        _tabular_sample,
    ),
    Architecture(
        "discretization",
        "Discretization adapted on data, one-hot encoded",
        "https://keras.io/api/layers/preprocessing_layers/numerical/discretization/",
        _seeded(_discretized),
        _column,
    ),
    Architecture(
        "string_lookup",
        "StringLookup adapted on data, then an Embedding",
        "https://keras.io/api/layers/preprocessing_layers/categorical/string_lookup/",
        _seeded(_looked_up),
        _colours,
    ),
    Architecture(
        "text_vectorization",
        "TextVectorization adapted on text, Embedding, pooling",
        "https://keras.io/examples/nlp/text_classification_from_scratch/",
        _seeded(_vectorized),
        _sentences,
    ),
    Architecture(
        "masking_lstm",
        "Masking of padded steps, LSTM",
        "https://keras.io/guides/understanding_masking_and_padding/",
        _seeded(_masked_lstm),
        _padded_series,
    ),
    Architecture(
        "embedding_bigru",
        "Embedding with mask_zero, bidirectional GRU, variable length",
        "https://keras.io/examples/nlp/bidirectional_lstm_imdb/",
        _seeded(_embedding_gru),
        _token_ids,
    ),
    Architecture(
        "transformer_block",
        "Token and position embedding (a custom layer), one transformer encoder block",
        "https://keras.io/examples/nlp/text_classification_with_transformer/",
        _seeded(_transformer),
        _ten_tokens,
    ),
    Architecture(
        "conv1d_variable_length",
        "Conv1D over sequences of any length, global max pooling",
        "https://keras.io/examples/timeseries/timeseries_classification_from_scratch/",
        _seeded(_variable_length_conv),
        _series,
    ),
    Architecture(
        "siamese_nested",
        "Siamese: one nested encoder model on two named inputs",
        "https://keras.io/examples/vision/siamese_contrastive/",
        _seeded(_siamese),
        _pairs,
    ),
    Architecture(
        "subclassed",
        "Subclassed model, residual block written in call",
        "https://keras.io/guides/making_new_layers_and_models_via_subclassing/",
        _seeded(_subclassed),
        _rows,
    ),
    Architecture(
        "subclassed_functional",
        "Subclass of Model built with the functional constructor",
        "https://keras.io/api/models/model/",
        _seeded(_subclassed_functional),
        _rows,
    ),
    Architecture(
        "convnext_tiny",
        "ConvNeXtTiny (LayerScale, a layer of keras.applications' own)",
        KERAS_APPLICATIONS,
        _application("ConvNeXtTiny"),
        lambda b, s: _images(b, s),
    ),
    Architecture(
        "efficientnet_v2_b0",
        "EfficientNetV2B0 (fused MBConv blocks, Rescaling inside)",
        KERAS_APPLICATIONS,
        _application("EfficientNetV2B0"),
        lambda b, s: _images(b, s),
    ),
    Architecture(
        "inception_v3",
        "InceptionV3 at 75x75 (its smallest input), parallel branches",
        KERAS_APPLICATIONS,
        _application("InceptionV3", size=INCEPTION_SIZE),
        lambda b, s: _images(b, s, INCEPTION_SIZE),
    ),
]
