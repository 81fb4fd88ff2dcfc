"""A face analyzer object, whose constructor loads its Keras models, is made per video."""

import numpy as np
from tensorflow import keras

SOURCE = "https://github.com/ina-foss/inaFaceAnalyzer/issues/23"
SUMMARY = "analyzer objects created several times warn '5 out of the last 9 calls' to predict"


class FaceClassifier:
    def __init__(self):
        inputs = keras.Input((32, 32, 3))
        self.model = keras.Model(inputs, keras.layers.Dense(2)(keras.layers.Flatten()(inputs)))

    def classify(self, faces):
        return self.model.predict(faces, verbose=0)


videos = [np.random.rand(6, 32, 32, 3) for _ in range(3)]
for frames in videos:
    classifier = FaceClassifier()  # hazard: TFL002
    classifier.classify(frames)
