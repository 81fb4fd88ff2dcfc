"""A loss tf.function called with Python bools that switch between calls."""

import tensorflow as tf
from corpus_watch import watch

SOURCE = "https://github.com/NatLabRockies/sup3r/pull/109"
SUMMARY = "calc_loss retraces (5 out of the last 18 calls) as the GAN alternates what it trains"
EXPECT = [("Sup3rGan.calc_loss", "train_gen", "python-value")]


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
gan.calc_loss = watch(gan.calc_loss)
true, generated = tf.ones([4, 8]), tf.zeros([4, 8])
for _ in range(3):  # the generator's step, then the discriminator's
    gan.calc_loss(true, generated, train_gen=True, train_disc=False)
    gan.calc_loss(true, generated, train_gen=False, train_disc=True)
