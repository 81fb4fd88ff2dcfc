"""Grid refinement makes two tf.functions for its while loop on every call, per dimension."""

import tensorflow as tf

SOURCE = "https://github.com/N3PDF/vegasflow/issues/84"
SUMMARY = "refine_grid_per_dimension defines while_check and while_body tf.functions per call"


def refine_grid_per_dimension(t_res_sq, subdivisions):
    @tf.function
    def while_check(bin_weight, *args):  # hazard: TFL001
        return bin_weight < t_res_sq[-1]

    @tf.function
    def while_body(bin_weight, n_bin):  # hazard: TFL001
        return bin_weight + t_res_sq[n_bin], n_bin + 1

    start = (tf.constant(0.0), tf.constant(0))
    return tf.while_loop(while_check, while_body, start)[0] / subdivisions


grid = tf.random.uniform([3, 50])
for dimension in range(3):
    refine_grid_per_dimension(tf.cumsum(grid[dimension]), 50.0)
