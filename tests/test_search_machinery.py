"""The site's search worker (Material's + verification/search_worker.js), run under Node on
small indexes: word forms match, what a pasted message carries as data does not decide the
ranking, and the site's pages name the worker. Each case also runs Material's worker alone
where the difference is the point, so that the test shows what the change does."""

import html
import json
import shutil
from pathlib import Path

import pytest
import yaml

from verification import symptoms
from verification.search_machinery import (
    ANSWERS_LEAD,
    add_symptoms,
    material_worker,
    point_config_at,
    worker_name,
    worker_text,
)
from verification.search_rank import rank

ROOT = Path(__file__).resolve().parents[1]


class _Permissive(yaml.SafeLoader):
    """mkdocs.yml holds !ENV and other tags: read them as nothing."""


_Permissive.add_multi_constructor("", lambda loader, suffix, node: None)


def site_search_config() -> dict:
    """The search configuration mkdocs.yml gives the site (separator, pipeline, fields)."""
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_Permissive)
    for plugin in config["plugins"]:
        if isinstance(plugin, dict) and "search" in plugin:
            search = plugin["search"]
            fields = {name: {"boost": float(v["boost"])} for name, v in search["fields"].items()}
            return {
                "lang": ["en"],
                "separator": search["separator"],
                "pipeline": search["pipeline"],
                "fields": {**fields, "tags": {"boost": 1e6}},
            }
    raise AssertionError("mkdocs.yml configures no search plugin")


def make_site(folder: Path, docs: list[dict], *, ours: bool = True) -> Path:
    """A site of ``docs`` (location, title, text) with the site's search configuration and
    the site's worker (or Material's alone)."""
    site = folder / ("ours" if ours else "material")
    workers = site / "assets" / "javascripts" / "workers"
    workers.mkdir(parents=True)
    shutil.copy(material_worker(), workers)
    name = material_worker().name
    if ours:
        text = worker_text(name)
        name = worker_name(text)
        (workers / name).write_text(text, encoding="utf-8")
    config = {"base": ".", "search": f"assets/javascripts/workers/{name}"}
    (site / "index.html").write_text(
        '<script id="__config" type="application/json">' + json.dumps(config) + "</script>",
        encoding="utf-8",
    )
    (site / "search").mkdir()
    index = {"config": site_search_config(), "docs": docs}
    (site / "search" / "search_index.json").write_text(json.dumps(index), encoding="utf-8")
    return site


def pages(site: Path, query: str) -> list[str]:
    return [result["page"] for result in rank(site, [query], top=10)[0]]


def doc(location: str, title: str, text: str) -> dict:
    return {"location": location, "title": title, "text": text}


@pytest.fixture
def needs_node():
    if shutil.which("node") is None:
        pytest.fail("these tests run the search worker under Node: install node")


WORD_FORMS = [
    doc("warning/", "The message", "TensorFlow prints a warning when a function traces."),
    doc("serving/", "Serving", "Keeping one graph for many models."),
    doc("lint/", "Lint", "Checks code before it runs."),
    doc("executing/", "Graphs", "Tracing versus executing a function."),
    doc("other/", "Other", "Nothing about any of these."),
]


@pytest.mark.parametrize(
    ("query", "page"),
    [("warnings", "warning/"), ("serve", "serving/"), ("execution", "executing/")],
)
def test_a_word_finds_its_other_forms(tmp_path, needs_node, query, page):
    assert pages(make_site(tmp_path, WORD_FORMS), query)[:1] == [page]
    # Material's worker alone makes the word a prefix: it misses the other form.
    assert page not in pages(make_site(tmp_path, WORD_FORMS, ours=False), query)


def test_a_word_longer_than_the_indexed_one_falls_back_to_it(tmp_path, needs_node):
    # "linter" stems to itself; the index holds "lint" (4 of its 6 letters).
    assert pages(make_site(tmp_path, WORD_FORMS), "linter")[:1] == ["lint/"]


COMPOUNDS = [
    doc("strategies/", "Distribution strategies", "A MirroredStrategy runs a step per replica."),
    doc("mirrors/", "Mirrors", "Mirrored copies of a file."),
    doc("specs/", "Specs", "A TensorSpec describes a tensor."),
    doc("other/", "Other", "Nothing about any of these."),
]


@pytest.mark.parametrize(
    ("query", "page"),
    [("mirroredstrategy not working", "strategies/"), ("distributionstrategies", "strategies/")],
)
def test_a_name_typed_without_its_capitals_finds_its_words(tmp_path, needs_node, query, page):
    # The index holds "mirror" and "strategi" (the separator splits MirroredStrategy at its
    # capital); "mirroredstrategy" typed in lower case is one word the index lacks, too
    # long for the fallback to a shorter indexed word.
    assert pages(make_site(tmp_path, COMPOUNDS), query)[:1] == [page]
    assert page not in pages(make_site(tmp_path, COMPOUNDS, ours=False), query)


def test_a_word_the_index_holds_is_not_split(tmp_path, needs_node):
    # "mirrors" is held (stemmed "mirror"): it is not read as "mir" + "rors" or the like.
    assert pages(make_site(tmp_path, COMPOUNDS), "mirrors")[:1] == ["mirrors/"]


def test_the_last_word_is_still_a_prefix_while_it_is_typed(tmp_path, needs_node):
    site = make_site(tmp_path, WORD_FORMS)
    assert pages(site, "exec")[:1] == ["executing/"]


# What a pasted message carries besides its words, each next to a page that such data
# matched by prefix in Material's search: a number ("1"), a letter ("n", "x"), an address.
DATA_BAIT = [
    doc("numpy/", "numpy inside a function", "A Tensor object has no attribute numpy."),
    doc("numbers/", "1, 1.0 and True", "Three values, one trace: 5 calls, 32 calls, 157 lines."),
    doc("nightly/", "nightly builds", "The n in nightly."),
    doc("xla/", "XLA", "x64 and xla compile."),
    doc("hex/", "Addresses", "0x7f3c403e47b8 0x0000022c2b694e50 w0413 136417104351360"),
]
CLEAN = "AttributeError: Tensor object has no attribute numpy"
PASTED = (
    "W0413 08:03:54.968961 136417104351360 polymorphic_function.py:157] AttributeError: "
    "'Tensor' object has no attribute 'numpy' in model(x) at 0x7f3c403e47b8, n=5 1.0"
)


def test_a_pasted_message_ranks_as_its_clean_words(tmp_path, needs_node):
    site = make_site(tmp_path, DATA_BAIT)
    clean, pasted = pages(site, CLEAN), pages(site, PASTED)
    assert pasted[:1] == clean[:1] == ["numpy/"]
    assert not {"numbers/", "nightly/", "xla/", "hex/"} & set(pasted), pasted


def test_a_tilde_or_caret_in_pasted_text_is_text_not_query_syntax(tmp_path, needs_node):
    # lunr's "~116" is an edit distance of 116 (the worker ran out of memory on set 10's
    # "causes ~116s cold stall") and its "^9" a boost of 9.
    site = make_site(tmp_path, WORD_FORMS)
    assert pages(site, "serving warning ~116s") == pages(site, "serving warning")
    assert pages(site, "warning serving^90") == pages(site, "warning serving")


def test_a_hyphens_prefix_alone_matches_nothing(tmp_path, needs_node):
    docs = [
        doc("hooks/", "pre-commit hooks", "Run the linter before each commit."),
        doc("models/", "Trained models", "A model trained once and served."),
    ]
    assert pages(make_site(tmp_path, docs), "pre-trained model")[:1] == ["models/"]
    assert "hooks/" in pages(make_site(tmp_path, docs, ours=False), "pre-trained model")


@pytest.mark.parametrize(
    ("query", "found_by_material_alone"),
    [
        ("为什么90%的开发者都忽略了tf.function的signature参数?", False),  # Chinese, two names
        ("@tf.functionデコレータを使ってみたら、signatureのエラー", True),  # Japanese
        ("signature参数", False),  # glued to the Latin word, and the last word
    ],
)
def test_chinese_and_japanese_text_separates_words(
    tmp_path, needs_node, query, found_by_material_alone
):
    docs = [
        doc("signatures/", "Input signatures", "Declaring the signature of a tf.function."),
        doc("other/", "Other", "Nothing about these."),
    ]
    assert pages(make_site(tmp_path, docs), query)[:1] == ["signatures/"]
    # Material's worker alone leaves Han script glued to the words: nothing is found.
    alone = pages(make_site(tmp_path, docs, ours=False), query)
    assert (alone[:1] == ["signatures/"]) is found_by_material_alone, alone


def test_a_file_path_in_a_pasted_message_does_not_decide(tmp_path, needs_node):
    """A pasted warning starts with where the reader's TensorFlow is installed: the page that
    shows such a path (a deprecation notice) outranked the one that answers the warning."""
    docs = [
        doc(
            "deprecated/",
            "Deprecated options",
            "WARNING:tensorflow:From /usr/local/lib/python3.12/site-packages/tensorflow/python/"
            "util/deprecation.py:588: an option is deprecated.",
        ),
        doc("eager/", "Running eagerly", "The eagerly option does not apply to tf.data functions."),
    ]
    query = (
        "/usr/local/lib/python3.8/dist-packages/tensorflow/python/data/ops/"
        "structured_function.py:264: the eagerly option does not apply"
    )
    site = make_site(tmp_path, docs)
    assert pages(site, query) == pages(site, query.split(": ", 1)[1]) == ["eager/", "deprecated/"]


def test_quotes_do_not_stick_to_words(tmp_path, needs_node):
    site = make_site(tmp_path, DATA_BAIT)
    assert pages(site, "'numpy'")[:1] == ["numpy/"]


def test_data_bait_does_match_with_materials_worker_alone(tmp_path, needs_node):
    # The test above can fail: without the change, the pasted data reaches other pages.
    site = make_site(tmp_path, DATA_BAIT, ours=False)
    assert {"numbers/", "nightly/", "xla/"} & set(pages(site, PASTED))


def test_a_passage_with_every_word_outranks_a_heading_with_one(tmp_path, needs_node):
    docs = [
        doc("examples/", "Seeing the warning in the examples", "Run them."),
        doc("savedmodel/", "SavedModels", "Saving and loading."),
        doc(
            "savedmodel/#signatures",
            "Signatures versus restored functions",
            "A signature wrapper called without its examples argument: missing required arguments.",
        ),
    ]
    query = "TypeError: signature_wrapper(*, examples) missing required arguments: examples"
    assert pages(make_site(tmp_path, docs), query)[:1] == ["savedmodel/"]
    # Material's worker alone puts the heading that holds "examples" first.
    assert pages(make_site(tmp_path, docs, ours=False), query)[:1] == ["examples/"]


# The retracing warning's fixed words are on many pages (here eight others) and all on the
# page about the warning; the function it names is on one page.
RETRACING = [
    doc(
        "warning/",
        "The retracing warning",
        "5 out of the last 5 calls to a tf.function triggered retracing.",
    ),
    doc(
        "savedmodel/",
        "Loaded SavedModels",
        "The function restored_function_body, made by recreate_function, retraces.",
    ),
    doc("training/", "Training", "A train step."),
] + [
    doc(
        f"other{i}/",
        f"Other {i}",
        "Calls of a tf.function: a warning when retracing is triggered, out of the last calls.",
    )
    for i in range(8)
]
WARNING_OF = (
    "WARNING:tensorflow:5 out of the last 5 calls to <function {} at 0x7f23a70d9680> "
    "triggered tf.function retracing."
)
NAME = "recreate_function.<locals>.restored_function_body"


def test_the_function_a_retracing_warning_names_decides(tmp_path, needs_node):
    site = make_site(tmp_path, RETRACING)
    assert pages(site, WARNING_OF.format(NAME))[:1] == ["savedmodel/"]
    # The same words, not as the warning names a function: weighed alike, the page on the
    # warning's words comes first (as it does for the warning without the change).
    shuffled = (
        "WARNING:tensorflow:5 out of the last 5 calls triggered tf.function retracing " + NAME
    )
    assert pages(site, shuffled)[:1] == ["warning/"]


COLONS = [
    doc("warning/", "The warning", "What it says and why it is printed."),
    doc("types/", "Type hints", "A type annotation; an error in it."),
    doc("len/", "len of a symbolic tensor", "Why len fails while tracing."),
    doc("other/", "Other", "Nothing about any of these."),
]


def test_a_word_before_a_colon_is_searched(tmp_path, needs_node):
    # lunr reads "Warning:" as a field name, and Material's worker drops it.
    query = "Fix the Warning: unlock"
    assert pages(make_site(tmp_path, COLONS), query)[:1] == ["warning/"]
    assert "warning/" not in pages(make_site(tmp_path, COLONS, ours=False), query)


def test_an_exception_class_before_its_colon_is_dropped(tmp_path, needs_node):
    # "TypeError:" says nothing of which page answers: its words ("type", "error") do not
    # reach the page whose title holds "Type"; a quote before it changes nothing, and a
    # field of the index ("title:") is still a field.
    site = make_site(tmp_path, COLONS)
    for query in ("TypeError: len fails", "`'TypeError: len fails'`"):
        found = pages(site, query)
        assert found[:1] == ["len/"] and "types/" not in found, (query, found)
    assert pages(site, "title:type")[:1] == ["types/"]


def test_tensorflows_own_exception_class_is_searched(tmp_path, needs_node):
    # InaccessibleTensorError names the problem, where TypeError names nothing: its words
    # find the page that names it.
    docs = [
        doc("kept/", "Kept", "The InaccessibleTensorError, for a tensor."),
        doc("scope/", "Scope", "A tensor defined in a function."),
    ]
    query = "InaccessibleTensorError: tensor defined"
    assert pages(make_site(tmp_path, docs), query)[:1] == ["kept/"]


PRINTED_TENSOR = [
    doc("kept/", "A kept tensor", "The tensor cannot be accessed here: it is defined elsewhere."),
    doc("shapes/", "Shapes and dtypes", "A shape of float32, its dtype, and a neg op."),
]


def test_a_printed_tensor_in_a_pasted_message_does_not_decide(tmp_path, needs_node):
    """Its quoted name (which Material's worker makes a required word: no page at all came
    back), its shape and its dtype are the reader's data."""
    site = make_site(tmp_path, PRINTED_TENSOR)
    for query in (
        "The tensor 'Tensor(\"while/Neg:0\", shape=(), dtype=float32)' cannot be accessed here",
        "The tensor <tf.Tensor 'neg:0' shape=(2,) dtype=float32> cannot be accessed here",
        "The tensor KerasTensor(type_spec=TensorSpec(shape=(None, 3), dtype=tf.float32, "
        "name='neg'), name='neg', description=\"created by layer 'neg'\") cannot be accessed "
        "here",
    ):
        assert pages(site, query)[:1] == ["kept/"], query
    assert pages(make_site(tmp_path / "stock", PRINTED_TENSOR, ours=False), query)[:1] != ["kept/"]


def test_a_query_that_is_only_a_printed_tensor_finds_the_page_on_symbolic_tensors(
    tmp_path, needs_node
):
    """Read as nothing, it found no page at all; it is a symbolic tensor, said in words."""
    site = make_site(
        tmp_path,
        [*PRINTED_TENSOR, doc("symbolic/", "Symbolic tensors", "A symbolic tensor prints so.")],
    )
    for query in (
        'Tensor("Identity_1:0", shape=(), dtype=float32)',
        "<tf.Tensor 'mul:0' shape=() dtype=int32>",
    ):
        assert pages(site, query)[:1] == ["symbolic/"], query


def test_a_pasted_sentences_last_word_is_whole_not_a_prefix(tmp_path, needs_node):
    # "key." ends a sentence: it is not being typed, and does not find "keyword".
    docs = [
        doc("keywords/", "Keyword arguments", "Arguments by keyword."),
        doc("refs/", "Refs", "Use tensor.ref() as the key of a dict."),
    ]
    site = make_site(tmp_path, docs)
    assert pages(site, "as the key.")[:1] == ["refs/"]
    assert pages(site, "as the key")[:1] == ["keywords/"]  # typed: still a prefix


def test_a_quoted_word_the_index_lacks_leaves_the_rest_searched(tmp_path, needs_node):
    site = make_site(tmp_path, PRINTED_TENSOR)
    assert pages(site, 'accessed "zzzz"')[:1] == ["kept/"]


def test_the_pages_name_the_site_worker():
    page = (
        '<p>x</p><script id="__config" type="application/json">{"base": "../..", '
        '"search": "../../assets/javascripts/workers/search.a7633da7.min.js"}</script>'
    )
    changed = point_config_at(page, "search-retracing.0123abcd.min.js")
    assert '"search":"../../assets/javascripts/workers/search-retracing.0123abcd.min.js"' in changed
    assert changed.startswith("<p>x</p>")
    assert point_config_at("<p>no config</p>", "w.js") == "<p>no config</p>"
    with pytest.raises(ValueError, match="names no search worker"):
        point_config_at('<script id="__config" type="application/json">{}</script>', "w.js")


def test_results_pages_are_left_out_of_search_and_others_keep_their_own():
    from verification.search_machinery import search_meta

    assert search_meta("benchmarks/results/cpu/predict_loop.md") == {"exclude": True}
    assert search_meta("guide/keras-models.md") is None


def test_notebooks_weigh_less_than_the_guide_pages_they_repeat():
    from verification.search_machinery import search_meta

    # A notebook's own entry holds all its code; weighed down, it is still found by title.
    assert search_meta("notebooks/diagnose-serving-loop.ipynb") == {"boost": 0.5}
    assert search_meta("notebooks/dynamic-shapes-lab.ipynb")["boost"] < 1
    assert search_meta("guide/dynamic-shapes.md") is None


# --- The symptom index in search -------------------------------------------------------


def message(title: str, shown: str, answer: str) -> symptoms.Message:
    return symptoms.Message(title, shown, "tensorflow", "0", "x.py", ("x",), answer)


def symptom_index() -> dict:
    return {
        "config": {},
        "docs": [
            doc("guide/shapes/", "Shapes and <code>None</code>", "The page."),
            doc("guide/shapes/#static", "Static shapes", "A shape known when tracing."),
            doc("guide/messages/#len", "len is not well defined", "Listed here too."),
        ],
    }


def test_a_message_is_searchable_in_the_section_that_answers_it():
    index = symptom_index()
    shown = "TypeError: len is not well defined for a symbolic Tensor (x:0) <here>."
    changed = add_symptoms(
        index,
        [
            message("len", shown, "guide/shapes.md#static"),
            message("page", "Other", "guide/shapes.md#shapes-and-none"),
        ],
        lambda page: page.removesuffix(".md") + "/",
    )
    assert changed == 2
    page, section, listed = index["docs"]
    assert section["text"].startswith("A shape known when tracing.")
    assert f"<p>{ANSWERS_LEAD}</p>" in section["text"]
    assert "(x:0) &lt;here&gt;.</p>" in section["text"]  # escaped: text, not markup
    # An answer at the page's own title lands on the page's entry.
    assert page["text"].endswith("<p>Other</p>")
    assert listed["text"] == "Listed here too."


def test_a_message_whose_section_is_not_in_the_index_is_named():
    index = symptom_index()
    with pytest.raises(ValueError, match=r"symptom 'gone' answers guide/shapes.md#gone"):
        add_symptoms(index, [message("gone", "x", "guide/shapes.md#gone")], lambda p: p[:-3] + "/")


def test_the_built_index_holds_every_message_in_its_answering_section(built_site):
    index = json.loads((built_site / "search" / "search_index.json").read_text("utf-8"))
    texts = {entry["location"]: entry["text"] for entry in index["docs"]}
    for found in symptoms.load():
        url = found.page.removesuffix(".md") + "/"
        entry = texts.get(f"{url}#{found.anchor}", texts[url])
        assert ANSWERS_LEAD in entry, found.title
        assert html.escape(found.shown.strip()) in entry, found.title


def test_a_section_with_every_word_of_a_pasted_message_outranks_a_heading_with_two(
    tmp_path, needs_node
):
    """A heading holding two of the words scores above the section that holds all seven
    unless that section weighs WHOLE times more (with 1 in its place, this fails)."""
    docs = [
        doc("inputs/", "Input signatures", "Arguments."),
        doc("inputs/#keys", "A tensor key", "A tensor key."),
        doc("cases/", "The explainer, case by case", "Cases."),
        doc(
            "cases/#not-the-fix",
            "When it is not the fix",
            "The message Variable is unhashable. Instead, use tensor.ref() as the key, with "
            "its causes and what to do instead of passing the variable as a dict key.",
        ),
    ]
    query = "TypeError: Variable is unhashable. Instead, use tensor.ref() as the key."
    assert pages(make_site(tmp_path, docs), query)[:2] == ["cases/", "inputs/"]


def test_a_message_that_names_the_readers_function_is_still_held_whole(tmp_path, needs_node):
    """AutoGraph's warning names the reader's function; the section that holds the rest of
    the message whole outranks a page whose text holds the warning's generic words and some
    of the name's (without setting the name aside, the section cannot hold every word)."""
    docs = [
        doc(
            "warning/",
            "The retracing warning",
            "WARNING:tensorflow: the warning names the function, its locals and its variables.",
        ),
        doc("autograph/", "Errors while tracing", "AutoGraph."),
        doc(
            "autograph/#could-not-transform",
            "Could not transform",
            "WARNING:tensorflow:Entity &lt;function f at 0x1&gt; could not be transformed and "
            "will be executed as-is.",
        ),
    ]
    query = (
        "WARNING:tensorflow:Entity <function Function._initialize_uninitialized_variables."
        "<locals>.initialize_variables at 0x7fd89803cef0> could not be transformed and will "
        "be executed as-is."
    )
    assert pages(make_site(tmp_path, docs), query)[:1] == ["autograph/"]


FLAGS = [
    doc("xla/", "XLA", "Set TF_XLA_FLAGS to --tf_xla_auto_jit=2 and XLA clusters on a CPU."),
    doc("keras/", "Keras and XLA", "A Keras model compiles with XLA when asked."),
    doc("other/", "Other", "Clusters of machines."),
]


def test_a_flag_in_a_pasted_log_line_does_not_exclude_the_page_that_names_it(tmp_path, needs_node):
    """lunr reads "-word" as a word that must not be there; a pasted line's flags are
    words (the XLA warning as pasted found no page at all)."""
    site = make_site(tmp_path, FLAGS)
    pasted = (
        "Not using XLA:CPU for cluster because envvar TF_XLA_FLAGS=--tf_xla_auto_jit was not set"
    )
    assert pages(site, pasted)[:1] == ["xla/"]
    assert pages(site, "TF_XLA_FLAGS --tf_xla_auto_jit")[:1] == ["xla/"]
    # a short query's single hyphen still excludes, as Material's search documents
    assert "keras/" not in pages(site, "xla -keras")
    assert "xla/" not in pages(make_site(tmp_path / "stock", FLAGS, ours=False), pasted)
