"""The hash that ties a results file to the code it measured (benchmarks.code_hash)."""

from __future__ import annotations

import json

import pytest

from benchmarks.code_hash import (
    code_ast_hash,
    code_hash,
    code_hashes,
    freshness,
    migrate,
    migrate_file,
    stale_admonition,
)


def tree(tmp_path):
    (tmp_path / "pkg" / "__pycache__").mkdir(parents=True)
    (tmp_path / "pkg" / "a.py").write_text("A = 1\n")
    (tmp_path / "pkg" / "__pycache__" / "a.cpython-312.pyc").write_bytes(b"\0")
    (tmp_path / "cases.py").write_text("CASES = []\n")
    return tmp_path


def test_the_hash_follows_contents_and_paths_not_caches(tmp_path):
    root = tree(tmp_path)
    first = code_hash(["pkg", "cases.py"], root)
    (root / "pkg" / "__pycache__" / "a.cpython-312.pyc").write_bytes(b"changed")
    assert code_hash(["pkg", "cases.py"], root) == first  # bytecode is not code
    (root / "pkg" / "a.py").write_text("A = 2\n")
    assert code_hash(["pkg", "cases.py"], root) != first
    assert code_hash(["pkg/*.py"], root) == code_hash(["pkg/a.py"], root)


def test_a_run_of_changed_code_is_named_stale_and_a_missing_path_is_an_error(tmp_path):
    root = tree(tmp_path)
    provenance = {"measured": ["pkg"], "code_hash": code_hash(["pkg"], root)}
    assert freshness(provenance, root) is None and stale_admonition(provenance, root) == ""
    (root / "pkg" / "a.py").write_text("A = 3\n")
    note = freshness(provenance, root)
    assert "(`pkg`) has changed since" in note and provenance["code_hash"] in note
    assert stale_admonition(provenance, root).startswith('!!! warning "Older than its code"')
    assert "recorded no hash" in freshness({"date": "x"}, root)
    assert not stale_admonition({"date": "x"}, root).startswith("!!!")  # a sentence only
    with pytest.raises(FileNotFoundError, match="nowhere"):
        code_hash(["nowhere"], root)


MODULE = '''"""The module's docstring."""

LIMIT = 3  # a comment


def scaled(x):
    """A function's docstring."""
    return x * LIMIT


class Kept:
    """Only a docstring."""
'''


def hashes_after(tmp_path, edit) -> tuple[dict, dict]:
    (tmp_path / "m.py").write_text(MODULE)
    before = code_hashes(["m.py"], tmp_path)
    (tmp_path / "m.py").write_text(edit(MODULE))
    return before, code_hashes(["m.py"], tmp_path)


@pytest.mark.parametrize(
    "edit",
    [
        lambda s: s.replace("# a comment", "# another comment, longer"),
        lambda s: s.replace("LIMIT = 3", "# a new line of comment\nLIMIT = 3"),
        lambda s: s.replace("The module's docstring.", "Reworded."),
        lambda s: s.replace("A function's docstring.", "Reworded, over\n    two lines."),
        lambda s: s.replace('    """A function\'s docstring."""\n', ""),
        lambda s: s.replace('"""Only a docstring."""', '"""Still only a docstring."""'),
    ],
    ids=["comment", "comment-line", "module-doc", "function-doc", "doc-removed", "class-doc"],
)
def test_a_comment_or_docstring_change_keeps_the_syntax_tree_hash(tmp_path, edit):
    before, after = hashes_after(tmp_path, edit)
    assert after["code_ast_hash"] == before["code_ast_hash"]
    assert after["code_hash"] != before["code_hash"]  # the bytes did change


@pytest.mark.parametrize(
    "edit",
    [
        lambda s: s.replace("LIMIT = 3", "LIMIT = 4"),
        lambda s: s.replace("x * LIMIT", "x + LIMIT"),
        lambda s: s.replace("def scaled(x)", "def scaled(y)").replace("x *", "y *"),
        lambda s: s.replace("# a comment", "\nprint('a string that is not a docstring')"),
    ],
    ids=["constant", "operator", "name", "statement"],
)
def test_a_behaviour_change_alters_the_syntax_tree_hash(tmp_path, edit):
    before, after = hashes_after(tmp_path, edit)
    assert after["code_ast_hash"] != before["code_ast_hash"]


def test_other_files_and_unparsable_python_are_hashed_by_their_bytes(tmp_path):
    (tmp_path / "cases.json").write_text('{"a": 1}  ')
    (tmp_path / "broken.py").write_text("def (:  # not Python\n")
    before = code_ast_hash(["cases.json", "broken.py"], tmp_path)
    (tmp_path / "broken.py").write_text("def (:  # not Python, another comment\n")
    assert code_ast_hash(["cases.json", "broken.py"], tmp_path) != before
    (tmp_path / "broken.py").write_text("def (:  # not Python\n")
    (tmp_path / "cases.json").write_text('{"a": 1}')
    assert code_ast_hash(["cases.json", "broken.py"], tmp_path) != before


def test_a_run_with_a_syntax_tree_hash_survives_a_comment_and_not_a_constant(tmp_path):
    (tmp_path / "m.py").write_text(MODULE)
    run = {"measured": ["m.py"], **code_hashes(["m.py"], tmp_path)}
    (tmp_path / "m.py").write_text(MODULE.replace("# a comment", "# reworded"))
    assert freshness(run, tmp_path) is None
    (tmp_path / "m.py").write_text(MODULE.replace("LIMIT = 3", "LIMIT = 30"))
    assert run["code_ast_hash"] in freshness(run, tmp_path)


def test_a_run_with_only_a_byte_hash_is_compared_by_bytes(tmp_path):
    (tmp_path / "m.py").write_text(MODULE)
    old_run = {"measured": ["m.py"], "code_hash": code_hash(["m.py"], tmp_path)}
    (tmp_path / "m.py").write_text(MODULE.replace("# a comment", "# reworded"))
    assert old_run["code_hash"] in freshness(old_run, tmp_path)  # no tree hash to trust


def test_migration_adds_the_tree_hash_only_to_a_run_of_the_code_as_it_is(tmp_path):
    (tmp_path / "m.py").write_text(MODULE)
    fresh = {"measured": ["m.py"], "code_hash": code_hash(["m.py"], tmp_path)}
    stale = {"measured": ["m.py"], "code_hash": "0123456789ab"}
    unhashed = {"measured": ["m.py"]}
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"scenarios": {"a": fresh, "b": stale, "c": unhashed}}))
    lines = migrate_file(path, tmp_path)
    document = json.loads(path.read_text())["scenarios"]
    assert document["a"]["code_ast_hash"] == code_ast_hash(["m.py"], tmp_path)
    assert "code_ast_hash" not in document["b"] and "code_ast_hash" not in document["c"]
    assert [line.split(": ")[1] for line in lines] == ["a", "b", "c"]
    assert "left as it is" in lines[1] and "has changed since" in lines[1]
    # A comment edit after the migration leaves the migrated run fresh, the other stale.
    (tmp_path / "m.py").write_text(MODULE.replace("# a comment", "# reworded"))
    assert freshness(document["a"], tmp_path) is None
    assert freshness(document["b"], tmp_path) is not None
    assert migrate(document["b"], tmp_path) is False  # still not this code's run
