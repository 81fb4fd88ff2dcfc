"""The symptom index (verification/symptoms/messages.toml): every literal of a message is in
the installed source file it cites, of the version it cites; the text a reader pastes holds
them; every answer is a section of an existing page; the page renders them all."""

import importlib.metadata
import importlib.util
import json
import re
import textwrap
import zipfile
from pathlib import Path

import pytest

from verification.symptoms import MARKER, PAGE, Message, heading_of, load, render
from verification.symptoms.wheels import RECORD, read_wheel

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
MESSAGES = load()


def installed_file(message: Message) -> Path:
    """The file that holds the message's literals: its Python source, or the compiled
    library C++ built it into."""
    spec = importlib.util.find_spec(message.package)
    assert spec is not None and spec.origin, f"{message.package} is not installed"
    return Path(spec.origin).parent / (message.library or message.path)


def one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text)


INSTALLED = [message for message in MESSAGES if not message.wheel]
FROM_WHEELS = [message for message in MESSAGES if message.wheel]


@pytest.mark.parametrize("message", INSTALLED, ids=lambda message: message.title)
def test_the_message_is_in_the_source_it_cites(message):
    installed = importlib.metadata.version(message.package.replace("_", "-"))
    assert installed == message.version, (
        f"{message.title!r} cites {message.package} {message.version}; {installed} is "
        "installed: read the message in its source again and update the entry"
    )
    # Bytes, so that a compiled library (a message C++ prints) is read as a Python source
    # is: a UTF-8 text holds a string exactly when its bytes hold the string's UTF-8 bytes.
    held = installed_file(message).read_bytes()
    where = message.library or message.path
    for literal in message.literals:
        assert literal.encode("utf-8") in held, f"{message.title!r}: {literal!r} not in {where}"
    if not message.python_builds:
        for literal in message.literals:
            assert one_line(literal) in one_line(message.shown), (message.title, literal)


@pytest.mark.parametrize("message", MESSAGES, ids=lambda message: message.title)
def test_the_answer_is_a_section_of_a_page(message):
    page = DOCS / message.page
    assert page.is_file(), f"{message.title!r}: {message.page} does not exist"
    assert heading_of(page.read_text(encoding="utf-8"), message.anchor), (
        f"{message.title!r}: {message.page} has no section #{message.anchor}"
    )


def test_the_page_renders_every_message_once():
    assert MARKER in (DOCS / PAGE).read_text(encoding="utf-8")
    text = render(MESSAGES, DOCS)
    for message in MESSAGES:
        # Each message is in a collapsed block, indented under its title.
        shown = textwrap.indent(message.shown, "    ")
        assert text.count(f"\n{shown}\n") == 1, message.title
        assert f'??? quote "{message.title.replace(chr(34), "&quot;")}"' in text
        assert f"]({message.source_url()})" in text
    assert len({message.title for message in MESSAGES}) == len(MESSAGES)


@pytest.mark.parametrize("message", FROM_WHEELS, ids=lambda message: message.title)
def test_an_older_releases_message_was_read_from_its_wheel(message):
    # The installed release no longer holds it: wheels.json records where each literal
    # stands in the cited file of the wheel named (python -m verification.symptoms.wheels).
    record = json.loads(RECORD.read_text(encoding="utf-8"))
    assert message.wheel in record, f"{message.title!r}: {message.wheel} was never read"
    assert re.fullmatch(r"[0-9a-f]{64}", record[message.wheel]["sha256"])
    assert message.version in message.wheel, (message.title, message.wheel)
    found = record[message.wheel]["files"].get(message.path, {}).get("literals", {})
    for literal in message.literals:
        assert isinstance(found.get(literal), int), f"{message.title!r}: {literal!r} not read"
        assert one_line(literal) in one_line(message.shown), (message.title, literal)


def _wheel(tmp_path: Path, source: str) -> Path:
    wheel = tmp_path / "tensorflow_cpu-2.13.1-cp311-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("tensorflow/python/framework/ops.py", source)
    return wheel


def test_a_wheels_literals_are_found_by_line_and_a_missing_one_is_named(tmp_path):
    message = Message(
        title="old",
        shown="x is not allowed: y",
        package="tensorflow",
        version="2.13.1",
        path="python/framework/ops.py",
        literals=("is not allowed: y",),
        answer="guide/a.md#b",
        wheel="tensorflow_cpu-2.13.1-cp311-none-any.whl",
    )
    wheel = _wheel(tmp_path, "import os\n\nraise E('is not allowed: y')\n")
    record = read_wheel(wheel, [message])
    assert record["files"]["python/framework/ops.py"]["literals"] == {"is not allowed: y": 3}
    wheel = _wheel(tmp_path, "raise E('is not allowed: z')\n")
    with pytest.raises(ValueError, match="'old': 'is not allowed: y' is not in"):
        read_wheel(wheel, [message])


def test_a_literal_not_in_the_source_is_caught(tmp_path):
    # The check above can fail: a word changed in a literal is not in the file.
    message = MESSAGES[0]
    source = installed_file(message).read_text(encoding="utf-8")
    assert message.literals[0].replace("last", "past") not in source


def test_heading_of_reads_slugs_and_explicit_ids():
    markdown = "# Page\n\n## `if` on a tensor: one trace\n\n## Long name { #short }\n"
    assert heading_of(markdown, "if-on-a-tensor-one-trace") == "`if` on a tensor: one trace"
    assert heading_of(markdown, "short") == "Long name"
    assert heading_of(markdown, "long-name") is None


def test_a_bad_entry_is_named(tmp_path):
    bad = tmp_path / "messages.toml"
    bad.write_text('[[message]]\ntitle = "x"\nshown = "x"\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"message 1 has no package, version, path"):
        load(bad)
    bad.write_text(
        '[[message]]\ntitle = "x"\nshown = "x"\npackage = "torch"\nversion = "1"\n'
        'path = "a.py"\nliterals = ["x"]\nanswer = "guide/a.md#b"\n',
        encoding="utf-8",
    )
    with pytest.raises(ValueError, match="package must be one of"):
        load(bad)
