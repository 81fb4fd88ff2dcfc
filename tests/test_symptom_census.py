"""The census of the symptom index (verification/symptoms/census.py): every message that
TensorFlow's tracing sources raise or log is in the index or set aside with a reason, and
a message the census cannot place is named with its file and line."""

import textwrap

import pytest

from verification.symptoms import Message, load
from verification.symptoms.census import load_set_aside, statements, take

FILE = "python/framework/func_graph.py"  # any file of the census


def test_every_message_of_the_tracing_sources_is_indexed_or_set_aside():
    census = take(load(), load_set_aside())
    assert not census.errors(), "\n".join(census.errors())
    assert census.indexed and census.set_aside


def test_raises_and_logged_warnings_are_read_and_their_literals_kept():
    source = textwrap.dedent(
        """
        def f(x, error):
            if x:
                raise ValueError(f"{x} should not modify its Python input arguments.")
            logging.warning("`%s` is not a valid parameter name.", x)
            warnings.warn("device_name is being deprecated.")
            raise error  # no literal: not a statement
            raise TypeError("too short")  # a connective's length: not a message
        """
    )
    found = statements(FILE, source)
    assert [(s.line, s.kind) for s in found] == [
        (4, "ValueError"),
        (5, "warning:logging.warning"),
        (6, "warning:warnings.warn"),
    ]
    assert found[0].pieces == (" should not modify its Python input arguments.",)


def entry(literal: str) -> Message:
    return Message(
        title="t",
        shown=literal,
        package="tensorflow",
        version="0",
        path=FILE,
        literals=(literal,),
        answer="guide/autograph.md#x",
    )


def census_of(tmp_path, source: str, set_aside_text: str, messages=()):
    (tmp_path / FILE).parent.mkdir(parents=True)
    (tmp_path / FILE).write_text(textwrap.dedent(source))
    listing = tmp_path / "set_aside.toml"
    listing.write_text(textwrap.dedent(set_aside_text))
    aside = load_set_aside(listing, sources={FILE: "tensorflow"})
    return take(list(messages), aside, root=tmp_path, sources={FILE: "tensorflow"})


def test_a_message_neither_indexed_nor_set_aside_is_named_with_file_and_line(tmp_path):
    source = """
    raise ValueError("Something new a trace refuses to do.")
    raise ValueError("Something the index already answers.")
    """
    census = census_of(tmp_path, source, "", [entry("the index already answers")])
    assert census.errors() == [
        f"neither indexed nor set aside: tensorflow/{FILE}:2 (ValueError) "
        "'Something new a trace refuses to do.'"
    ]


def test_a_set_aside_entry_that_quotes_nothing_or_an_indexed_message_is_named(tmp_path):
    source = 'raise ValueError("Something the index already answers.")\n'
    listing = f"""
    [[statement]]
    path = "{FILE}"
    says = "already answers"
    reason = "internal"

    [[statement]]
    path = "{FILE}"
    says = "a message TensorFlow no longer has"
    reason = "internal"
    """
    census = census_of(tmp_path, source, listing, [entry("the index already answers")])
    assert census.errors() == [
        f"set aside, but no statement says it: {FILE} 'a message TensorFlow no longer has'",
        f"indexed and set aside: tensorflow/{FILE}:1 (ValueError) "
        "'Something the index already answers.' ('already answers')",
    ]


@pytest.mark.parametrize(
    "entry_text, message",
    [
        ('path = "{file}"\nsays = "x"\nreason = "boring"', "reason must be one of"),
        ('path = "elsewhere.py"\nsays = "x"\nreason = "internal"', "elsewhere.py is not one of"),
        ('path = "{file}"\nreason = "internal"', "needs exactly path, says and reason"),
    ],
)
def test_a_bad_set_aside_entry_is_named(tmp_path, entry_text, message):
    listing = tmp_path / "set_aside.toml"
    listing.write_text("[[statement]]\n" + entry_text.format(file=FILE) + "\n")
    with pytest.raises(ValueError, match=message) as raised:
        load_set_aside(listing, sources={FILE: "tensorflow"})
    assert f"{listing}: statement 1" in str(raised.value)
