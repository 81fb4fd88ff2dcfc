"""A face detector constructed inside the loop over images; each runs an image pyramid."""

import keras
import numpy as np
import tensorflow as tf

SOURCE = "https://github.com/ipazc/mtcnn/issues/82"
SUMMARY = "MTCNN() inside the loop over images: 5 out of the last 5 calls retraced"
EXPECT = [
    # every detector's two models make new predict functions
    (
        "TensorFlowTrainer.make_predict_function.<locals>.one_step_on_data_distributed",
        None,
        "object",
    ),
    # and within a detector, the pyramid's second scale retraces pnet's, made general
    (
        "TensorFlowTrainer.make_predict_function.<locals>.one_step_on_data_distributed",
        "data[0]",
        "shape",
    ),
]
WRAPPED = False


class MTCNN:
    def __init__(self):
        image = keras.Input((None, None, 3))
        self.pnet = keras.Model(image, keras.layers.Conv2D(2, 3, activation="softmax")(image))
        crop = keras.Input((24, 24, 3))
        score = keras.layers.Dense(2)(keras.layers.Flatten()(crop))
        self.rnet = keras.Model(crop, score)

    def detect_faces(self, img):
        boxes = []
        for scale in (1.0, 0.7, 0.5):  # the image pyramid
            size = (int(img.shape[0] * scale), int(img.shape[1] * scale))
            scaled = tf.image.resize(img, size)[None]
            heatmap = self.pnet.predict(scaled, verbose=0)  # hazard: TFL004
            boxes.extend(np.argwhere(heatmap[0, :, :, 1] > 0.5)[:3].tolist())
        crops = np.random.rand(len(boxes) + 1, 24, 24, 3)
        return self.rnet.predict(crops, verbose=0)  # hazard: TFL004


data = [np.random.rand(48, 64, 3).astype("float32") for _ in range(3)]
for img in data:
    detector = MTCNN()  # hazard: TFL002
    bounding_boxes = detector.detect_faces(img)
