"""A near miss: one tf.function per task, made in a loop but kept and reused."""

import tensorflow as tf

SOURCE = "https://github.com/sek788432/Waymo-2D-Object-Detection/issues/2"
SUMMARY = "near miss after the advice to create tf.functions once: one per task, kept, reused"

tasks = {"double": 2.0, "triple": 3.0}
steps = {}
for name, factor in tasks.items():
    steps[name] = tf.function(lambda x, f=factor: x * f)

for _ in range(100):
    for name in tasks:
        steps[name](tf.ones([4]))
