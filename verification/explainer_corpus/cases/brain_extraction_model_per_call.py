"""A segmentation helper that builds its network and loads its weights on every call."""

import os
import tempfile

import keras
import numpy as np

SOURCE = "https://github.com/ANTsX/ANTsPyNet/issues/138"
SUMMARY = "brain_extraction in a loop: 6 of the last 6 calls to one_step_on_data_distributed"
EXPECT = [
    (
        "TensorFlowTrainer.make_predict_function.<locals>.one_step_on_data_distributed",
        None,
        "object",
    )  # a new model, so a new predict function, per call
]
WRAPPED = False

WEIGHTS = os.path.join(tempfile.mkdtemp(), "brainExtraction.weights.h5")


def create_unet_model_3d(input_image_size):
    inputs = keras.Input(input_image_size)
    features = keras.layers.Conv3D(4, 3, padding="same", activation="relu")(inputs)
    return keras.Model(inputs, keras.layers.Conv3D(1, 1, activation="sigmoid")(features))


def brain_extraction(image):
    unet_model = create_unet_model_3d((8, 8, 8, 1))  # hazard: TFL002
    unet_model.load_weights(WEIGHTS)
    return unet_model.predict(image[None, ..., None], verbose=0)[0, ..., 0]


create_unet_model_3d((8, 8, 8, 1)).save_weights(WEIGHTS)  # the downloaded weights
for _ in range(4):  # one image after another
    mask = brain_extraction(np.random.rand(8, 8, 8))
