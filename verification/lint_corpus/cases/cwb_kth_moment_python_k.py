"""A moment distance calls a tf.function once per Python order k, inside another one."""

import tensorflow as tf

SOURCE = "https://github.com/lingxiaoli94/CWB/issues/2"
SUMMARY = "compute_kth_marginal_moment(ps, k) is called with k from a for loop over range"


@tf.function
def compute_kth_marginal_moment(ps, k):
    mean = tf.reduce_mean(ps, 0)
    return tf.reduce_mean(tf.math.pow(ps - mean, k), 0)


@tf.function
def compute_cmd(ps, qs, scale, order=5):
    result = tf.norm(tf.reduce_mean(ps, 0) - tf.reduce_mean(qs, 0)) / scale
    for k in range(2, order + 1):
        p_ck = compute_kth_marginal_moment(ps, k)  # hazard: TFL003
        q_ck = compute_kth_marginal_moment(qs, k)  # hazard: TFL003
        result += tf.norm(p_ck - q_ck) / (scale**k)
    return result


compute_cmd(tf.random.normal([100, 2]), tf.random.normal([100, 2]), 2.0)
