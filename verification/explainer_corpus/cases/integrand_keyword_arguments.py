"""A cross-section tf.function taking **kwargs, called by the integrator with the same ones."""

import tensorflow as tf
from corpus_watch import watch

SOURCE = "https://github.com/N3PDF/pdfflow/pull/34"
SUMMARY = "review worry: singletop's **kwargs would retrace on every call by the integrator"
# the same keyword names and Python values every call: one trace; as the reviewer answered
EXPECT = []


@tf.function
def singletop(xarr, n_dim=None, weight=None, **kwargs):
    x1, x2 = xarr[:, 0], xarr[:, 1]
    return weight * kwargs["alpha_s"] * x1 * x2 / kwargs["s_in"]


singletop = watch(singletop)
options = {"alpha_s": 0.118, "s_in": 13000.0**2}
for _ in range(5):  # one call per iteration of the Monte Carlo integrator
    xarr = tf.random.uniform([1000, 2], dtype=tf.float64)
    weight = tf.fill([1000], tf.constant(1e-3, tf.float64))
    singletop(xarr, n_dim=2, weight=weight, **options)
