"""The fix the explainer prints: the flags passed as tensors."""

import tensorflow as tf

ADVICE = (
    "Pass it as a tensor (tf.constant(False)) only if the function uses it in tensor operations"
)


class Sup3rGan:
    def __init__(self):
        self.weight = tf.Variable(0.5)

    @tf.function
    def calc_loss(self, high_res_true, high_res_gen, train_gen=True, train_disc=False):
        content = tf.reduce_mean(tf.square(high_res_true - high_res_gen))
        if train_gen:
            return content * self.weight
        if train_disc:
            return content + self.weight
        return content


gan = Sup3rGan()

true, generated = tf.ones([4, 8]), tf.zeros([4, 8])
for _ in range(3):  # the generator's step, then the discriminator's
    gan.calc_loss(true, generated, train_gen=tf.constant(True), train_disc=tf.constant(False))
    gan.calc_loss(true, generated, train_gen=tf.constant(False), train_disc=tf.constant(True))
