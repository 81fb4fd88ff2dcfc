"""The symptom index: the error and warning texts TensorFlow and Keras print around
tf.function and tracing (verification/symptoms/messages.toml), each with the source file
that prints it and the section of the guide that answers it, rendered as the Markdown of
docs/guide/messages.md (docs/hooks/symptom_index.py puts it there at build time).

Each entry's `literals` are strings of the message as they stand in the cited file, so a
test can check the file still says them (tests/test_symptom_index.py); ``shown`` is what a
reader pastes, and holds every literal unless Python composes the message
(``python_builds``). A message an older release printed names the published wheel it was
read from (``wheel``); verification/symptoms/wheels.py reads it there and records where
each literal stands (wheels.json), since the installed release no longer holds it. A
message TensorFlow's C++ runtime prints (XLA's, for one) names the compiled library of the
installed package that holds its literals (``library``); its ``path`` is then the C++ source
in the repository, which the wheel does not ship."""

from __future__ import annotations

import posixpath
import re
import textwrap
import tomllib
from dataclasses import dataclass, fields
from pathlib import Path

MESSAGES = Path(__file__).resolve().parent / "messages.toml"
PAGE = "guide/messages.md"
MARKER = "<!-- symptom index -->"
FIELDS = ("title", "shown", "package", "version", "path", "literals", "answer")
REPOSITORIES = {
    "tensorflow": (
        "TensorFlow",
        "https://github.com/tensorflow/tensorflow/blob/v{version}/tensorflow/{path}",
    ),
    "tf_keras": (
        "tf-keras",
        "https://github.com/keras-team/tf-keras/blob/v{version}/tf_keras/{path}",
    ),
    # Keras 3: the installed `keras` folder is the repository's keras/ (paths begin src/).
    "keras": (
        "Keras",
        "https://github.com/keras-team/keras/blob/v{version}/keras/{path}",
    ),
}


@dataclass(frozen=True)
class Message:
    title: str
    shown: str
    package: str
    version: str
    path: str
    literals: tuple[str, ...]
    answer: str
    python_builds: str = ""
    wheel: str = ""
    library: str = ""  # a compiled library of the package, for a message C++ prints

    @property
    def page(self) -> str:
        return self.answer.split("#")[0]

    @property
    def anchor(self) -> str:
        return self.answer.partition("#")[2]

    def source_url(self) -> str:
        return REPOSITORIES[self.package][1].format(version=self.version, path=self.path)


def load(path: Path = MESSAGES) -> list[Message]:
    """The entries of ``path``; a missing or wrong field is an error naming the entry."""
    with path.open("rb") as handle:
        entries = tomllib.load(handle).get("message", [])
    if not entries:
        raise ValueError(f"{path}: no [[message]] entries")
    messages = []
    for number, entry in enumerate(entries, 1):
        missing = [field for field in FIELDS if not entry.get(field)]
        if missing:
            raise ValueError(f"{path}: message {number} has no {', '.join(missing)}")
        if entry["package"] not in REPOSITORIES:
            raise ValueError(
                f"{path}: message {number} ({entry['title']!r}): package must be one of "
                f"{sorted(REPOSITORIES)}, not {entry['package']!r}"
            )
        if "#" not in entry["answer"]:
            raise ValueError(
                f"{path}: message {number} ({entry['title']!r}): answer needs a section "
                f"(page.md#anchor), not {entry['answer']!r}"
            )
        unknown = set(entry) - {field.name for field in fields(Message)}
        if unknown:
            raise ValueError(f"{path}: message {number} has unknown fields {sorted(unknown)}")
        messages.append(Message(**{**entry, "literals": tuple(entry["literals"])}))
    return messages


def heading_of(markdown: str, anchor: str) -> str | None:
    """The text of the heading of ``markdown`` whose anchor is ``anchor`` (an explicit
    ``{ #id }`` or the toc extension's slug of its text), or None."""
    from markdown.extensions.toc import slugify

    from verification.claims.markers import strip_markers

    # a heading may end with a claim marker, which the page as rendered does not show
    for line in strip_markers(markdown, "page").splitlines():
        found = re.match(r"^#{1,6}\s+(.*?)\s*(?:\{\s*#([\w-]+)\s*\})?\s*$", line)
        if not found:
            continue
        text, explicit = found[1], found[2]
        plain = re.sub(r"`([^`]*)`", r"\1", text)
        if (explicit or slugify(plain, "-")) == anchor:
            return text
    return None


def render(messages: list[Message], docs: Path) -> str:
    """The index's Markdown, for a page at docs/PAGE: one section per answering page (its
    title, linked), and in it each message as a collapsed block titled with the message's
    short name, holding the message as printed, the section that answers it and the
    source that prints it. Collapsed, the page stays a list of names a reader scans, and
    search and the browser's find still read the texts."""
    groups: dict[str, list[Message]] = {}
    for message in messages:
        groups.setdefault(message.page, []).append(message)
    parts = []
    for page, answered in groups.items():
        markdown = (docs / page).read_text(encoding="utf-8")
        link = posixpath.relpath(page, posixpath.dirname(PAGE))
        title = page_title(markdown, page)
        parts.append(f"## {title} {{ #{_group_id(page)} }}\n")
        parts.append(f"Answered in [{title}]({link}):\n")
        parts.extend(_entry(message, markdown, link) for message in answered)
    return "\n".join(parts)


def page_title(markdown: str, page: str) -> str:
    """The text of the page's first level-1 heading, inline code unquoted."""
    body = re.sub(r"\A---\n.*?\n---\n", "", markdown, flags=re.DOTALL)  # front matter
    found = re.search(r"^#\s+(.*?)\s*(?:\{[^}]*\})?\s*$", body, re.MULTILINE)
    if found is None:
        raise ValueError(f"{MESSAGES.name}: {page} has no title (a level-1 heading)")
    return re.sub(r"`([^`]*)`", r"\1", found[1])


def _group_id(page: str) -> str:
    return "messages-of-" + re.sub(r"[^a-z0-9]+", "-", page.removesuffix(".md").lower()).strip("-")


def _entry(message: Message, markdown: str, link: str) -> str:
    heading = heading_of(markdown, message.anchor)
    if heading is None:
        raise ValueError(f"{MESSAGES.name}: {message.title!r}: no section {message.answer}")
    name, _ = REPOSITORIES[message.package]
    source = f"{message.package}/{message.path}"
    body = (
        f"```text\n{message.shown}\n```\n\n"
        f"Answered in [{heading}]({link}#{message.anchor}). "
        f"Printed by [`{source}`]({message.source_url()}) ({name} {message.version}"
        + (", an older release: read from its published wheel" if message.wheel else "")
        + (f", compiled into `{message.library}`" if message.library else "")
        + ")."
        + (f" {message.python_builds}" if message.python_builds else "")
    )
    title = message.title.replace('"', "&quot;")
    return f'??? quote "{title}"\n\n' + textwrap.indent(body, "    ") + "\n"
