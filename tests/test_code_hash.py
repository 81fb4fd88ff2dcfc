"""The hash that ties a results file to the code it measured (benchmarks.code_hash)."""

from __future__ import annotations

import pytest

from benchmarks.code_hash import code_hash, freshness, stale_admonition


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
