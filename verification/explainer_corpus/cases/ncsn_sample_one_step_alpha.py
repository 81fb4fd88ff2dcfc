"""A sampling step whose step size looks like a Python float but is a tensor: no retrace."""

import keras
import tensorflow as tf
from corpus_watch import watch

SOURCE = "https://github.com/Xemnas0/NCSN-TF2.0/issues/26"
SUMMARY = "a static checker warns sample_one_step retraces as Python alpha_i changes per sigma"
# sigma_levels is a tensor, so alpha_i = eps * (sigma_i / sigmas[-1]) ** 2 is a tensor too
EXPECT = []


def build_model():
    x = keras.Input((8, 8, 1))
    idx_sigmas = keras.Input((), dtype="int32")
    scale = keras.layers.Embedding(10, 1)(idx_sigmas)
    score = keras.layers.Conv2D(1, 3, padding="same")(x)
    return keras.Model([x, idx_sigmas], score * keras.layers.Reshape((1, 1, 1))(scale))


@tf.function
def sample_one_step(model, x, idx_sigmas, alpha_i):
    z_t = tf.random.normal(shape=x.get_shape(), mean=0, stddev=1.0)
    score = model([x, idx_sigmas])
    noise = tf.sqrt(alpha_i) * z_t
    return x + alpha_i / 2 * score + noise


def sample_and_save(model, sigmas, eps=2 * 1e-5, T=3, n_images=4):
    x = tf.random.uniform(shape=(n_images, 8, 8, 1))
    for i, sigma_i in enumerate(sigmas):
        alpha_i = eps * (sigma_i / sigmas[-1]) ** 2
        idx_sigmas = tf.ones(n_images, dtype=tf.int32) * i
        for _ in range(T):
            x = sample_one_step(model, x, idx_sigmas, alpha_i)
    return x


sample_one_step = watch(sample_one_step)
sigma_levels = tf.math.exp(tf.linspace(tf.math.log(1.0), tf.math.log(0.01), 5))
sample_and_save(build_model(), sigma_levels)
