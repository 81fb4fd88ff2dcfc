"""The README's download sizes: the recorded figures match uv.lock, the README the figures."""

import json
import re

from verification import install_size


def test_the_recorded_sizes_are_those_of_the_lock_as_it_is():
    recorded = json.loads(install_size.RESULTS.read_text(encoding="utf-8"))
    assert recorded["lock"] == install_size.lock_hash(), (
        "uv.lock changed: python -m verification.install_size record"
    )
    assert recorded == install_size.measure()


def test_the_readme_gives_the_recorded_sizes_rounded():
    targets = json.loads(install_size.RESULTS.read_text(encoding="utf-8"))["targets"]
    readme = " ".join((install_size.ROOT / "README.md").read_text(encoding="utf-8").split())
    said = [int(n) for n in re.findall(r"about (\d+) MB", readme)]
    expected = [
        targets["build"]["megabytes"],
        targets["build"]["tensorflow_megabytes"],
        targets["test"]["megabytes"],
    ]
    assert said == [install_size.rounded(n) for n in expected]


def test_each_package_gets_the_wheel_of_this_platform_and_one_only():
    found = install_size.wheels(install_size.GROUPS["build"])
    names = [name.split("-")[0].lower() for name, _ in found]
    assert len(names) == len(set(names))
    tensorflow = [name for name, _ in found if name.startswith("tensorflow-")]
    assert len(tensorflow) == 1 and tensorflow[0].endswith(".whl")
