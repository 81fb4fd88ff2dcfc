"""The fix the explainer prints: the network built and its weights loaded once, then reused."""

import os
import tempfile

import keras
import numpy as np

ADVICE = "create that object once, outside the loop or request handler, and reuse it"

WEIGHTS = os.path.join(tempfile.mkdtemp(), "brainExtraction.weights.h5")


def create_unet_model_3d(input_image_size):
    inputs = keras.Input(input_image_size)
    features = keras.layers.Conv3D(4, 3, padding="same", activation="relu")(inputs)
    return keras.Model(inputs, keras.layers.Conv3D(1, 1, activation="sigmoid")(features))


_models = {}


def brain_extraction(image):
    if "unet" not in _models:  # built and loaded on the first call only
        _models["unet"] = create_unet_model_3d((8, 8, 8, 1))
        _models["unet"].load_weights(WEIGHTS)
    unet_model = _models["unet"]
    return unet_model.predict(image[None, ..., None], verbose=0)[0, ..., 0]  # hazard: TFL004


create_unet_model_3d((8, 8, 8, 1)).save_weights(WEIGHTS)  # the downloaded weights
for _ in range(4):  # one image after another
    mask = brain_extraction(np.random.rand(8, 8, 8))
