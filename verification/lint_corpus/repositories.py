"""The precision set: public repositories of TensorFlow code, pinned to a commit, and the
review of every finding the linter made on them (true or false, and why).

A finding's key is (repository, path, notebook cell or None, line, rule). A finding with
no review counts as unreviewed: the results show it, and the test fails until someone
reads the code and records a verdict here.
"""

from __future__ import annotations

import dataclasses
import subprocess
from pathlib import Path


@dataclasses.dataclass(frozen=True)
class Repository:
    name: str  # owner/name on GitHub
    commit: str

    @property
    def folder(self) -> str:
        return self.name.replace("/", "+")


REPOSITORIES = (
    Repository("tensorflow/docs", "7c3650212740204359d4ceae481abc79345541be"),
    Repository("tensorflow/examples", "608f7db8c511e3dcc420afc564496e4516ceb800"),
    Repository("ageron/handson-ml3", "e3f3f9e66d58cfa1d068a498433063a1d3fba9ef"),
    Repository("aymericdamien/TensorFlow-Examples", "6dcbe14649163814e72a22a999f20c5e247ce988"),
    Repository("dragen1860/TensorFlow-2.x-Tutorials", "9861a308283d17693d497fdfaab20b92c0b26d08"),
)


def review_key(repository: str, path: str, cell: int | None, line: int, rule: str) -> tuple:
    return (repository, path, cell, line, rule)


_PREDICT_PER_BATCH = (
    "predict is called once per batch of a dataset in a loop; each call builds a data "
    "iterator and callbacks, and one predict over the dataset (or the model called in a "
    "tf.function) does the same work once"
)
_GENERATE_WORD_BY_WORD = (
    "text generation calls predict once per generated word, 100 times, on one padded "
    "sequence: a data iterator and callbacks per word, where calling the model in a "
    "tf.function would not set them up"
)
_UDACITY = "courses/udacity_intro_to_tensorflow_for_deep_learning"
_RL = "18_reinforcement_learning.ipynb"
# Its deep Q-learning cells define play_one_step, epsilon_greedy_policy and training_step
# again for each variant, each followed by its training loop (found once a call resolves
# to the definition made before it).
_ONE_STATE_PER_STEP = (
    "epsilon_greedy_policy predicts one state per environment step in the loop over "
    "episodes: each predict call sets up a data iterator and callbacks for one row; calling "
    "the model (model(state[np.newaxis])) does not"
)
_BATCH_PER_EPISODE = (
    "training_step predicts one replay batch per episode in the loop: a predict call, with "
    "its setup, per batch, where calling the model on the batch does the same work"
)

REVIEWS: dict[tuple, tuple[bool, str]] = {
    review_key("tensorflow/docs", "site/en/guide/function.ipynb", 55, 3, "TFL005"): (
        True,
        "the guide's own example of the ValueError: f creates tf.Variable(1.0) on every trace "
        "and the cell calls it under assert_raises; found once the body rules read a "
        "function whose name the notebook defines again",
    ),
    review_key("tensorflow/docs", "site/en/tutorials/images/segmentation.ipynb", 20, 4, "TFL004"): (
        True,
        "show_predictions predicts each of `num` batches separately (3 in the tutorial's "
        "calls): the pattern the rule names, though for 3 batches its cost is small",
    ),
    review_key(
        "tensorflow/examples",
        f"{_UDACITY}/l10c03_nlp_constructing_text_generation_model.ipynb",
        10,
        7,
        "TFL004",
    ): (True, _GENERATE_WORD_BY_WORD),
    review_key(
        "tensorflow/examples",
        f"{_UDACITY}/l10c04_nlp_optimizing_the_text_generation_model.ipynb",
        9,
        7,
        "TFL004",
    ): (True, _GENERATE_WORD_BY_WORD),
    review_key(
        "tensorflow/examples",
        f"{_UDACITY}/l10c04_nlp_optimizing_the_text_generation_model.ipynb",
        11,
        8,
        "TFL004",
    ): (True, _GENERATE_WORD_BY_WORD + " (sampling instead of argmax)"),
    review_key("ageron/handson-ml3", _RL, 57, 5, "TFL004"): (True, _ONE_STATE_PER_STEP),
    review_key("ageron/handson-ml3", _RL, 63, 5, "TFL004"): (True, _ONE_STATE_PER_STEP),
    review_key("ageron/handson-ml3", _RL, 66, 53, "TFL004"): (True, _ONE_STATE_PER_STEP),
    review_key("ageron/handson-ml3", _RL, 70, 20, "TFL004"): (True, _ONE_STATE_PER_STEP),
    review_key("ageron/handson-ml3", _RL, 57, 19, "TFL004"): (True, _BATCH_PER_EPISODE),
    review_key("ageron/handson-ml3", _RL, 63, 19, "TFL004"): (True, _BATCH_PER_EPISODE),
    review_key("ageron/handson-ml3", _RL, 66, 65, "TFL004"): (True, _BATCH_PER_EPISODE),
    review_key("ageron/handson-ml3", _RL, 70, 32, "TFL004"): (True, _BATCH_PER_EPISODE),
    review_key("ageron/handson-ml3", "11_training_deep_neural_networks.ipynb", 114, 3, "TFL004"): (
        True,
        "100 Monte Carlo dropout predictions of the same rows, one predict call each: "
        "calling the model with training=True in one batch avoids 100 setups",
    ),
    review_key("ageron/handson-ml3", "11_training_deep_neural_networks.ipynb", 131, 2, "TFL004"): (
        True,
        "the same pattern in a helper: n_samples predict calls on the same input",
    ),
    review_key(
        "tensorflow/examples", "lite/examples/speech_commands/ml/callbacks.py", None, 69, "TFL004"
    ): (True, "a Keras callback predicts each validation batch separately: " + _PREDICT_PER_BATCH),
    review_key(
        "tensorflow/examples",
        "tensorflow_examples/lite/model_maker/core/task/audio_classifier.py",
        None,
        95,
        "TFL004",
    ): (True, _PREDICT_PER_BATCH),
    review_key(
        "tensorflow/examples",
        "tensorflow_examples/lite/model_maker/core/task/audio_classifier.py",
        None,
        98,
        "TFL004",
    ): (True, _PREDICT_PER_BATCH),
    review_key(
        "dragen1860/TensorFlow-2.x-Tutorials", "06-CIFAR-VGG/main.py", None, 122, "TFL004"
    ): (
        True,
        "after each epoch the test set is predicted batch by batch (the model is a Keras "
        "VGG16 of the project's network module): " + _PREDICT_PER_BATCH,
    ),
    review_key(
        "dragen1860/TensorFlow-2.x-Tutorials",
        "19-BERT/transformer/transformer.py",
        None,
        451,
        "TFL004",
    ): (
        True,
        "greedy decoding calls predict once per generated token in a while loop, on inputs "
        "one token longer each time: a setup per step, and new shapes for predict_function",
    ),
    review_key(
        "tensorflow/docs", "site/en/tutorials/audio/music_generation.ipynb", 44, 14, "TFL004"
    ): (
        True,
        "generation calls predict_next_note once per note, 120 times, and it calls "
        "model.predict on one sequence each time: a data iterator and callbacks per note, "
        "where calling the model in a tf.function would not set them up",
    ),
    review_key(
        "tensorflow/docs", "site/en/tutorials/generative/adversarial_fgsm.ipynb", 10, 8, "TFL004"
    ): (
        True,
        "display_images predicts each of the 4 perturbed images with a separate predict "
        "call (the loop over epsilons): the pattern the rule names, though for 4 images "
        "its cost is small",
    ),
    review_key(
        "ageron/handson-ml3", "15_processing_sequences_using_rnns_and_cnns.ipynb", 49, 5, "TFL004"
    ): (
        True,
        "forecasting 14 steps ahead one step at a time: 14 predict calls, each on a "
        "sequence one step longer (a new shape for predict_function each time)",
    ),
    review_key("ageron/handson-ml3", "16_nlp_with_rnns_and_attention.ipynb", 23, 3, "TFL004"): (
        True,
        "extend_text calls next_char once per generated character (50 by default), and "
        "next_char calls shakespeare_model.predict on the whole text so far: a data "
        "iterator and callbacks per character, on a longer input each time",
    ),
}


def export(mirror: Path, destination: Path) -> None:
    """Write each repository's ``.py`` and ``.ipynb`` files at its commit into
    ``destination/<owner+name>/``, from git mirrors at ``mirror/<owner+name>/repo``.

    Blobs are read one by one (``git cat-file``), not through ``git archive``: a snapshot
    may lack its largest files, and archive failed on a missing image beside a wanted file.
    """
    for repository in REPOSITORIES:
        git = ["git", "-C", str(mirror / repository.folder / "repo")]
        listing = subprocess.run(
            [*git, "ls-tree", "-r", "-z", repository.commit],
            capture_output=True,
            check=True,
        ).stdout.split(b"\0")
        target = destination / repository.folder
        for entry in filter(None, listing):
            info, name = entry.split(b"\t", 1)
            _, kind, blob = info.split()
            path = name.decode("utf-8", "surrogateescape")
            if kind != b"blob" or not path.endswith((".py", ".ipynb")):
                continue
            content = subprocess.run(
                [*git, "cat-file", "blob", blob.decode()], capture_output=True, check=True
            ).stdout
            out = target / path
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(content)
