// The site's search worker, after Material's (loaded by the line the build puts above this
// one). Material's worker runs lunr, exposed as self.lunr, and the build's configuration
// (mkdocs.yml: separator, pipeline with the stemmer, field boosts). Material makes every
// query word a prefix and skips lunr's query pipeline, so the index is stemmed and the
// query is not: "warnings" would miss "warning" and "serve" miss "Serving". This file
// changes how a query's words are read and weighed, not the index and not the results'
// shape, by wrapping five lunr functions the worker calls:
//   - Builder.build: keeps the index, so that the query can ask which words it holds;
//   - QueryParser.parse: each query word is stemmed like the index; words that are data
//     (numbers, addresses, log prefixes, single letters) and hyphens' prefixes are dropped;
//     only the last word stays a prefix (it may be half typed); a word the index lacks
//     is searched as the indexed words it is written of ("mirroredstrategy" as mirrored
//     and strategy), else falls back to the longest indexed word it starts with ("linter"
//     finds "lint"); in a pasted retracing warning, the words of the function it names
//     ("calls to <function NAME at 0x...>") weigh twice the rest;
//     Chinese, Japanese and Korean script separates words and is dropped (the index is
//     English);
//   - QueryLexer: a piece of the query that is a path to a Python file (a traceback's or
//     a warning's "/usr/.../structured_function.py:264:") is read as nothing, and so is a
//     tensor as a message prints it ('Tensor("while/Neg:0", shape=(), dtype=float32)');
//   - QueryLexer.lexField: a word before a colon ("Warning: ...") is a word, not a field
//     name that Material's worker would drop; Python's exception classes ("TypeError:")
//     are still dropped, TensorFlow's ("InaccessibleTensorError:") are words;
//   - QueryParser.parse also: the words Material's worker makes required (those in double
//     quotes) are required only in a query shorter than a pasted message, and only when
//     the index holds them; the last word of a query that ends in punctuation is whole,
//     not a prefix being typed;
//   - Index.query: an entry that holds one word of a query whose words the index holds three
//     or more of weighs a fifth: a heading matching one generic word ("examples") no longer
//     outranks the passage that holds them all; and a section that holds every word of a
//     query whose words the index holds four or more of weighs WHOLE (1.5) times as much
//     (the words of a function a message other than the retracing warning names, the
//     reader's own, set aside).
//     Chosen on 2026-11-29 on the tune halves of sets 1-6 (one site build each way): 2 more
//     answering pages first (71 against 69 of 130) and 5 more in the top 3 (99 against 94),
//     none fewer in any set, and queries.toml unchanged (73 of 84). At 2, 72 first, but one
//     lost in set 1. Given to a page's own entry too, it cost queries.toml 2 first places:
//     the opening of the signatures-for-serving page shows a SavedModel error whole, which
//     the SavedModels page answers.
// Weighing the share of query words an entry holds beyond what Material already does (its
// score * (1 + (page + share) ** 2)), smoothly or above a half, and undoing Material's bonus
// for a page's own entry, were tried on the tune half of the held-out queries and dropped:
// none placed more answering pages first without placing fewer of queries.toml first.
// Weighing a pasted message's fixed words (the symptom index's literals, found in order in
// the query) at a third, so that a function's name in a pasted warning decides, was tried
// too: 5 answering pages gained first place and 3 lost it over the 190 queries of both sets
// and queries.toml (restored_function_body found the SavedModel page; "main.<locals>.train"
// and "<bound method Conv.call>" lost the warning's page to pages about training and
// methods); too small a gain for the machinery it adds, so it was dropped. Weighing only
// the name in the retracing warning's "<function NAME at 0x...>" (NAME_BOOST) was chosen
// on the tune halves of sets 3, 2 and 1 and queries.toml: at 2 it placed 3 answering pages
// first (restored_function_body twice, _make_execution_function once) and none fewer; at
// 3 it lost "main.<locals>.train" and put def_function's line out of the first 10; at 1.5
// it gained 1.
// Ranking a page by its sections together (its best entry plus 0.1, 0.25, 0.5 or 1 times
// the scores of its other matching entries) was tried on 2026-11-29 on the tune halves of
// sets 1-7 and queries.toml: 86 first at 0 against 85, 84, 80 and 73, and queries.toml
// 73, 73, 68 and 67 of 84: a page with many passages on a word is not more often the
// answer, so it was dropped.
// tests/test_search_machinery.py runs it under Node against a small index.
;(function (lunr) {
  "use strict"

  // Query words that are data, not words: numbers and versions (5, 2.16.1, 1e-3), memory
  // addresses (0x7f3c403e47b8) and hex runs of six or more, glog prefixes (W0413, I0000),
  // one letter.
  const DATA = /^(?:\d[\d.,:e+-]*|0x[0-9a-f]+|(?=[0-9a-f]{6,}$)[0-9a-f]*\d[0-9a-f]*[a-f][0-9a-f]*|[iwef]\d{4}|.)$/

  // Prefixes a hyphen leaves alone when it splits a word ("pre-trained" gives "pre", which
  // matched "pre-commit"): they say little without the word they were joined to. Not the
  // negations ("non-TensorFlow code" is a heading's subject), which say the opposite.
  const PREFIXES = new Set(["pre", "post", "re", "co", "sub", "semi", "multi"])

  // A stem the index does not hold falls back to the longest indexed word it starts with,
  // when that is at least this long and this share of it ("linter" finds "lint").
  const FALLBACK_MIN_LENGTH = 4
  const FALLBACK_MIN_SHARE = 0.6
  const FALLBACK_BOOST = 0.5

  // An entry that holds only one of the query's words, when the index holds three or more
  // of them, weighs this much: a heading matching one generic word ("examples") would
  // otherwise outrank a passage holding them all.
  const LONE = 0.2
  // A section that holds every word of a query whose words the index holds four or more of
  // weighs this much more: a passage that matches a pasted message whole ("Variable is
  // unhashable ... ref() as the key" was 7th, under headings that matched two of its words).
  const WHOLE = 1.5

  let index // the last index built: the site's

  const stem = word => lunr.stemmer(new lunr.Token(word)).toString()

  const isSection = result => result.ref.includes("#") // a page's own entry has no anchor
  // Whether an entry's matched words include a query clause's word (or, for the last
  // word, a word it is the prefix of).
  const holds = (matched, term) =>
    term.endsWith("*") ? matched.some(word => word.startsWith(term.slice(0, -1))) : matched.includes(term)

  function fallback(term) {
    if (!index) return undefined
    for (let end = term.length - 1; end >= FALLBACK_MIN_LENGTH; end--) {
      const shorter = term.slice(0, end)
      if (end / term.length < FALLBACK_MIN_SHARE) break
      if (holdsWord(shorter)) return shorter
    }
    return undefined
  }

  // A word the index lacks that is indexed words written together ("mirroredstrategy",
  // "savedmodel", "tensorspec": a name typed without its capitals, which the separator
  // would have split) is searched as those words: each part at least this long, and at
  // most this many parts; the split with the longest first part wins.
  const COMPOUND_MIN_PART = 3
  const COMPOUND_MAX_PARTS = 3

  function compound(typed, parts = COMPOUND_MAX_PARTS) {
    if (!index || parts < 2) return undefined
    for (let end = typed.length - COMPOUND_MIN_PART; end >= COMPOUND_MIN_PART; end--) {
      const head = stem(typed.slice(0, end))
      if (!holdsWord(head)) continue
      const rest = typed.slice(end)
      const tail = holdsWord(stem(rest)) ? [stem(rest)] : compound(rest, parts - 1)
      if (tail) return [head, ...tail]
    }
    return undefined
  }

  const holdsWord = word => Object.prototype.hasOwnProperty.call(index.invertedIndex, word)
  const holdsPrefix = word => Object.keys(index.invertedIndex).some(term => term.startsWith(word))
  // A clause's term as searched: "word*" (the word being typed) is held as a prefix.
  const holdsTerm = term =>
    Boolean(index) && (term.endsWith("*") ? holdsPrefix(term.slice(0, -1)) : holdsWord(term))

  // Chinese, Japanese and Korean script, and full-width punctuation: the site is written in
  // English, so its index holds none of it. Material's worker cuts a run of Han characters
  // into the indexed words it holds (none here) and leaves it glued to the Latin word beside
  // it ("的signature"), and a query word the index lacks matched nothing: a reader's
  // question in Chinese around "tf.function" and "signature" found no page at all. Here
  // that script separates words, as spaces do, and is dropped.
  const CJK = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}\u3000-\u303f\uff00-\uffef]+/u

  // One clause as Material's parser left it ("warnings*") -> the clauses to search (one,
  // or one per word of a compound), or none.
  function readClause(clause, last) {
    const typed = clause.term.replace(/\*/g, "")
    if (CJK.test(typed)) {
      const words = typed.split(CJK).filter(Boolean)
      const typing = clause.term.endsWith("*")
      return words.flatMap((word, k) => {
        const end = k === words.length - 1
        return readClause({ ...clause, term: word + (end && typing ? "*" : "") }, last && end)
      })
    }
    if (!typed || DATA.test(typed) || PREFIXES.has(typed)) return []
    const word = stem(typed)
    const typing = last && !ended && clause.term.endsWith("*") // a word being typed: a prefix
    clause.usePipeline = false // stemmed here, and only once
    clause.wildcard = lunr.Query.wildcard.NONE
    clause.term = typing ? word + "*" : word
    if (!index || holdsTerm(clause.term)) return [clause]
    const parts = compound(typed)
    if (parts) return parts.map(part => ({ ...clause, term: part }))
    const shorter = fallback(word)
    if (shorter) {
      clause.term = shorter
      clause.boost = (clause.boost || 1) * FALLBACK_BOOST
    }
    return [clause]
  }

  // lunr's query syntax reads "word:" as a field name. Material's worker drops a field
  // name that is not one of its fields, so a word followed by a colon and a space vanished
  // from the query: "Warning: ..." lost "Warning", "D:\...\site-packages\..." its path.
  // A colon after a word that is not a field of the index ends a word instead, as the
  // separator does in the index; except after an exception's class ("TypeError: ..."),
  // which is still dropped: its words ("type", "error") are on every page that shows an
  // error and say nothing of which one answers (kept, they put a page whose title holds
  // "type" above the answer to "TypeError: len is not well defined ...").
  const FIELDS = new Set(["title", "text", "tags"])
  // Python's own exception classes; TensorFlow's (InaccessibleTensorError,
  // OperatorNotAllowedInGraphError) name the problem and are kept as words.
  const EXCEPTION_CLASS = new RegExp(
    "^(?:Arithmetic|Assertion|Attribute|Buffer|EOF|FloatingPoint|Import|ModuleNotFound|Index|" +
      "Key|Lookup|Memory|Name|NotImplemented|OS|Overflow|Recursion|Reference|Runtime|Syntax|" +
      "System|Type|UnboundLocal|Unicode|Value|ZeroDivision)Error$|^Exception$")
  const lexField = lunr.QueryLexer.lexField
  lunr.QueryLexer.lexField = function (lexer) {
    const name = lexer.str.slice(lexer.start, lexer.pos - 1)
    if (FIELDS.has(name)) return lexField(lexer)
    if (EXCEPTION_CLASS.test(name.replace(/^[^A-Za-z]+/, ""))) {
      lexer.ignore() // the class and its colon: no word
      return lunr.QueryLexer.lexText
    }
    return lunr.QueryLexer.lexTerm(lexer)
  }

  // A file path in a pasted message or traceback ("/usr/local/lib/python3.8/dist-packages/
  // tensorflow/python/data/ops/structured_function.py:264:", File "/srv/train.py") is where
  // the reader's installation or script lives: its words (usr, lib, packages, python) said
  // nothing of the answer, yet matched every page that shows a path. Material's worker reads
  // each whitespace-separated piece of the query with a QueryLexer; a piece that is a path
  // to a Python file is read as nothing.
  const PATH = /^["'(]?(?:[A-Za-z]:)?[\w.@+~-]*(?:[\\/][\w.@+~-]+)+\.py[co]?(?::\d+)*[:,"')]*$/
  // A tensor or variable as a message prints it ('Tensor("while/Neg:0", shape=(),
  // dtype=float32)', <tf.Tensor 'mul:0' shape=() dtype=int32>, KerasTensor(type_spec=
  // TensorSpec(shape=(None, 3), ...), name='input_1', ...)) is the reader's data: the op's
  // name, shape and dtype matched pages about shapes and dtypes above the one that answers
  // the message. It is read as nothing: the piece that opens it and the pieces after it
  // until its brackets close (Material's worker has already turned a quoted
  // name into a required word, +name:0, and split the query at whitespace).
  const TENSOR_OPENS = /^['"(\[]*(?:(?:Keras)?Tensor\((?:['"]|type_spec=|$)|<tf\.(?:Tensor|Variable)$)/
  const TENSOR_MAX_PIECES = 40 // a bracket never closed does not swallow the whole query
  let unclosed = 0 // brackets of a printed tensor still open after the last piece read
  let pieces = 0
  // Whether the last piece read ends in punctuation: a pasted sentence's last word, whole,
  // not a word being typed (as a prefix, "key." found "keyword" above the answer).
  let ended = false
  const Lexer = lunr.QueryLexer
  function PathlessLexer(str) {
    Lexer.call(this, readPiece(str))
  }
  function readPiece(piece) {
    if (/\s/.test(piece)) {
      unclosed = 0 // a whole query, lexed after its pieces
      return piece
    }
    if (unclosed > 0 && ++pieces <= TENSOR_MAX_PIECES) {
      unclosed += balance(piece)
      return ""
    }
    const opened = TENSOR_OPENS.exec(piece)
    unclosed = opened ? Math.max(balance(piece), 1) : 0
    pieces = 0
    // the query as Material's worker rewrote it ("key*", a * after each word) says nothing
    if (!piece.endsWith("*")) ended = /[.!?;:,)\]'"]$/.test(piece)
    if (opened) return AS_PRINTED(opened[0])
    return PATH.test(piece) ? "" : piece.replace(FLAG_DASHES, "")
  }
  // What a printed tensor is, said in the words the pages use: a tensor printed with an
  // op's name ('Tensor("Identity_1:0", ...)', <tf.Tensor 'mul:0' ...>, KerasTensor(...)) is
  // a symbolic one, a graph's or Keras's; a variable is a variable. A query that was only
  // a printed tensor, pasted to ask why it prints so, was read as nothing and found no page.
  const AS_PRINTED = opener => (/Variable/.test(opener) ? "variable" : "symbolic tensor")
  const FLAG_DASHES = /^-{2,}(?=\w)/ // a command-line flag ("--vmodule") is a word
  const balance = piece => (piece.match(/[([<]/g) || []).length - (piece.match(/[)\]>]/g) || []).length
  PathlessLexer.prototype = Lexer.prototype
  Object.assign(PathlessLexer, Lexer) // its lexing states and lexeme types
  lunr.QueryLexer = PathlessLexer

  const build = lunr.Builder.prototype.build
  lunr.Builder.prototype.build = function () {
    index = build.call(this)
    return index
  }

  // The retracing warning names the function that retraced: "N out of the last N calls to
  // <function NAME at 0x...> triggered tf.function retracing". Its fixed words are on the
  // page about the warning; the name is what tells a loaded SavedModel
  // (recreate_function.<locals>.restored_function_body) or Keras' predict_function from
  // the reader's own function. The name's words weigh this much more (a word the warning
  // itself holds, such as "function", keeps its first, plain clause).
  const NAME_BOOST = 2
  const ADDRESS = /^0x[0-9a-f]*$/

  // Where a function's name that starts at words[start] ends: at the address after it
  // (0x...) or at a word of `stops`; -1 when the query ends first.
  function nameEnd(words, start, stops = []) {
    let end = start
    while (end < words.length && !ADDRESS.test(words[end]) && !stops.includes(words[end])) end++
    return end < words.length ? end : -1
  }

  function markFunctionName(clauses) {
    const words = clauses.map(clause => clause.term.replace(/\*/g, ""))
    for (let i = 0; i + 2 < words.length; i++) {
      if (!/^calls?$/.test(words[i]) || words[i + 1] !== "function") continue
      const end = nameEnd(words, i + 2, ["triggered"])
      for (let k = i + 2; k < end; k++) clauses[k].boost = (clauses[k].boost || 1) * NAME_BOOST
      return
    }
    markOwnName(clauses, words)
  }

  // Another message that names a function ("Entity <function NAME at 0x...> could not be
  // transformed") names the reader's own: a section that holds every other word of the
  // message still holds it whole (WHOLE), though it cannot hold the reader's name.
  function markOwnName(clauses, words) {
    const i = words.indexOf("function")
    if (i < 0) return
    const end = nameEnd(words, i + 1)
    for (let k = i + 1; k < end; k++) clauses[k].ownName = true
  }

  // Material's worker makes each word inside double quotes required (a phrase). In a pasted
  // message the quotes are the message's own: they hold a tensor's or an op's name
  // ('Tensor("while/while/Neg:0", ...)'), and requiring those words, which no page holds
  // or a page holds by chance ("neg", the stem of "negative"), returned no page at all for
  // an InaccessibleTensorError as pasted. In a query of this many words or more, no word is
  // required; in a shorter one, a word is required only if the index holds it.
  // lunr reads a word after a hyphen ("-word") as one that must not be there; in a pasted
  // log line the hyphens are the message's own: a flag ("TF_XLA_FLAGS=--tf_xla_auto_jit=2")
  // then removed the one page that names it, and XLA's pasted warning found no page at
  // all. In a query of PASTED_WORDS words or more no word is excluded, and in any query a
  // flag written with two hyphens is a word (readPiece).
  const PASTED_WORDS = 5

  function unrequire(clauses) {
    const { REQUIRED, PROHIBITED, OPTIONAL } = lunr.Query.presence
    const pasted = clauses.length >= PASTED_WORDS
    for (const clause of clauses) {
      if (clause.presence === REQUIRED && (pasted || !holdsTerm(clause.term)))
        clause.presence = OPTIONAL
      if (clause.presence === PROHIBITED && pasted) clause.presence = OPTIONAL
    }
  }

  // lunr reads "~N" after a word as an edit distance and "^N" as a boost. Readers type
  // neither (the search box does not offer them); in pasted text they are the text's own
  // ("a ~116s stall", "x^2"), and an edit distance of 116 made lunr expand the word over
  // every indexed word until the worker ran out of memory: no result, ever. Both are reset.
  function plain(clauses) {
    for (const clause of clauses) {
      delete clause.editDistance // present at all, even 0, lunr reads the word as fuzzy: no prefix
      clause.boost = 1
    }
  }

  const parse = lunr.QueryParser.prototype.parse
  lunr.QueryParser.prototype.parse = function () {
    const query = parse.call(this)
    const clauses = query.clauses
    plain(clauses)
    markFunctionName(clauses)
    const kept = []
    clauses.forEach((clause, i) => {
      for (const read of readClause(clause, i === clauses.length - 1))
        if (!kept.some(other => other.term === read.term)) kept.push(read)
    })
    if (kept.length) query.clauses = kept // a query of data alone is searched as typed
    unrequire(query.clauses)
    return query
  }

  const query = lunr.Index.prototype.query
  lunr.Index.prototype.query = function (fn) {
    let asked = []
    const results = query.call(this, built => {
      fn(built)
      asked = built.clauses.filter(c => c.presence !== lunr.Query.presence.PROHIBITED)
    })
    if (this !== index) return results
    const known = asked.filter(clause => holdsTerm(clause.term))
    if (known.length < 3) return results
    const message = known.filter(clause => !clause.ownName) // the words a message holds
    for (const result of results) {
      const matched = Object.keys(result.matchData.metadata)
      if (matched.length < 2) result.score *= LONE
      else if (isSection(result) && message.length >= 4 && message.every(c => holds(matched, c.term)))
        result.score *= WHOLE
    }
    return results.sort((a, b) => b.score - a.score)
  }
})(self.lunr)
