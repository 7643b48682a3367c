"""String tensors (ember.string, host-side) and ember.strings, checked against Python and NumPy references."""

import re

import numpy as np
import pytest

import ember
from ember import errors

WORDS = [["apple pie", "", "  Ünïcode  "], ["a,b,,c", "x y\tz", "MiXeD 12"]]


def _ref(words):
    """The nested list as an object array of UTF-8 bytes."""
    array = np.array(words, dtype=object)
    return np.vectorize(lambda s: s.encode("utf-8"), otypes=[object])(array)


def _cases():
    """(python value, expected bytes array) over scalar, empty and multi-dim shapes."""
    return [("héllo", np.array("héllo".encode(), dtype=object)),
            ([], None),
            (WORDS, _ref(WORDS)),
            ([[["a"], ["b"]]], _ref([[["a"], ["b"]]]))]


# --- The value type ---------------------------------------------------------------


def test_dtype_object():
    assert ember.string is ember.dtypes.string
    assert ember.string.name == "string"
    assert ember.as_dtype("string") is ember.string
    assert ember.as_dtype(np.dtype("S3")) is ember.string and ember.as_dtype(str) is ember.string
    assert ember.string not in ember.dtypes.ALL_DTYPES  # the C++ enum's list is unchanged
    assert ember.as_dtype("float32") != ember.string


@pytest.mark.parametrize("value", ["a", b"a", ["a", b"b"], np.array(["x", "yz"]), np.array([b"x"]),
                                   np.array([b"p", "q"], dtype=object), [["a", "b"], ["c", "d"]]])
def test_constant_and_convert(value):
    for make in (ember.constant, ember.convert_to_tensor):
        t = make(value)
        assert t.dtype == ember.string
        expected = np.array(value, dtype=object)
        expected = np.vectorize(lambda v: v.encode() if isinstance(v, str) else bytes(v), otypes=[object])(expected)
        assert t.shape == expected.shape and t.ndim == expected.ndim
        if t.ndim == 0:
            assert t.numpy() == expected[()] and isinstance(t.numpy(), bytes)
        else:
            assert t.numpy().dtype == object and t.numpy().tolist() == expected.tolist()


def test_str_is_utf8_and_bytes_kept_exactly():
    assert ember.constant("é").numpy() == b"\xc3\xa9"
    assert ember.constant(b"a\x00").numpy() == b"a\x00"  # no NumPy S-dtype stripping of trailing NULs
    assert ember.constant(["a\x00"]).numpy().tolist() == [b"a\x00"]


def test_numeric_conversion_unchanged():
    assert ember.constant([1, 2]).dtype == ember.int32
    assert ember.constant([]).dtype == ember.float32
    with pytest.raises(TypeError):
        ember.constant(["a", 1])  # mixed values are not strings
    with pytest.raises(TypeError):
        ember.constant(1, dtype=ember.string)
    with pytest.raises(ValueError):
        ember.convert_to_tensor(ember.constant("a"), dtype=ember.float32)


def test_constant_dtype_and_shape():
    t = ember.constant("ab", dtype=ember.string, shape=[2, 3])
    assert t.shape == (2, 3) and set(t.numpy().ravel().tolist()) == {b"ab"}
    assert ember.constant(["a", "b", "c", "d"], shape=[2, 2]).numpy().tolist() == [[b"a", b"b"], [b"c", b"d"]]


def test_numpy_is_a_copy():
    t = ember.constant(["a", "b"])
    array = t.numpy()
    array[0] = b"z"
    assert t.numpy().tolist() == [b"a", b"b"]


def test_len_iter_index_slice():
    ref = _ref(WORDS)
    t = ember.constant(WORDS)
    assert len(t) == 2
    assert [row.numpy().tolist() for row in t] == ref.tolist()
    assert t[1, 2].numpy() == ref[1, 2]
    assert t[:, 1:].numpy().tolist() == ref[:, 1:].tolist()
    assert t[..., ::-1].numpy().tolist() == ref[..., ::-1].tolist()
    assert t[None].shape == (1, 2, 3)
    assert t[ember.constant(1)].numpy().tolist() == ref[1].tolist()
    assert t[:, [2, 0]].numpy().tolist() == ref[:, [2, 0]].tolist()
    mask = np.array([True, False])
    assert t[mask].numpy().tolist() == ref[mask].tolist()
    with pytest.raises(IndexError):
        t[2]
    with pytest.raises(TypeError):
        len(ember.constant("a"))
    with pytest.raises(TypeError):
        iter(ember.constant("a"))
    with pytest.raises(TypeError, match="indices"):
        t["a"]


def test_repr_and_str():
    t = ember.constant([["a", "b"]])
    assert repr(t).startswith("<ember.Tensor shape=(1, 2) dtype=string")
    assert "b'a'" in repr(t) and "b'b'" in str(t) and "dtype=string" in str(t)
    assert str(ember.constant("x")) == "ember.Tensor(b'x', shape=(), dtype=string)"


@pytest.mark.parametrize("op,ref", [("__eq__", np.equal), ("__ne__", np.not_equal)])
def test_comparison_broadcasts(op, ref):
    t = ember.constant(WORDS)
    for other in ["", ["apple pie", "x y\tz", "MiXeD 12"], ember.constant(WORDS)]:
        got = getattr(t, op)(other)
        other_ref = other.numpy() if isinstance(other, type(t)) else _ref(other)
        expected = ref(_ref(WORDS), other_ref)
        assert got.dtype == ember.bool and np.array_equal(got.numpy(), expected)
    assert np.array_equal(ember.equal(t, "").numpy(), _ref(WORDS) == b"")
    assert np.array_equal(ember.not_equal("", t).numpy(), _ref(WORDS) != b"")
    with pytest.raises(errors.InvalidArgumentError):
        t == ["a", "b"]
    with pytest.raises(TypeError):
        t == 1


def test_add_concatenates():
    assert (ember.constant(["a", "b"]) + "!").numpy().tolist() == [b"a!", b"b!"]
    assert ("<" + ember.constant("x")).numpy() == b"<x"


# --- Shape ops dispatched on string tensors ---------------------------------------------


def test_shape_ops():
    t = ember.constant(WORDS)
    ref = _ref(WORDS)
    assert ember.reshape(t, [3, 2]).numpy().tolist() == ref.reshape(3, 2).tolist()
    assert ember.reshape(t, [-1]).shape == (6,)
    assert ember.expand_dims(t, -1).shape == (2, 3, 1)
    assert ember.squeeze(ember.expand_dims(t, 0)).shape == (2, 3)
    assert ember.transpose(t).numpy().tolist() == ref.T.tolist()
    assert ember.tile(t, [1, 2]).numpy().tolist() == np.tile(ref, [1, 2]).tolist()
    assert ember.identity(t).numpy().tolist() == ref.tolist()
    assert ember.stack([t, t], axis=1).numpy().tolist() == np.stack([ref, ref], 1).tolist()
    assert ember.stack(["a", "b"]).numpy().tolist() == [b"a", b"b"]
    assert ember.concat([t, t], 1).numpy().tolist() == np.concatenate([ref, ref], 1).tolist()
    assert ember.concat([t, t], -2).shape == (4, 3)
    assert ember.gather(t, [1, 0]).numpy().tolist() == ref[[1, 0]].tolist()
    assert ember.gather(t, ember.constant([2]), axis=1).numpy().tolist() == ref[:, [2]].tolist()
    assert [u.numpy().tolist() for u in ember.unstack(t, axis=1)] == [ref[:, i].tolist() for i in range(3)]
    assert ember.shape(t).numpy().tolist() == [2, 3] and ember.shape(t).dtype == ember.int32
    assert ember.shape(t, out_type=ember.int64).dtype == ember.int64
    assert int(ember.size(t)) == 6 and int(ember.rank(t)) == 2
    assert ember.reshape(ember.constant([], dtype=ember.string), [0, 2]).shape == (0, 2)


def test_shape_op_errors():
    t = ember.constant(WORDS)
    with pytest.raises(errors.InvalidArgumentError, match="reshape"):
        ember.reshape(t, [4])
    with pytest.raises(errors.InvalidArgumentError, match="gather"):
        ember.gather(t, [2])
    with pytest.raises(errors.InvalidArgumentError, match="concat"):
        ember.concat([t, ember.constant(["a"])], 0)
    with pytest.raises(TypeError, match="concat"):
        ember.concat([t, ember.constant([[1, 2, 3]])], 0)
    with pytest.raises(errors.InvalidArgumentError, match="expand_dims"):
        ember.expand_dims(t, 5)
    with pytest.raises(TypeError):  # numeric errors are unchanged
        ember.reshape(object(), [1])


def test_numeric_paths_unchanged():
    x = ember.constant([[1.0, 2.0]])
    assert ember.reshape(x, [2]).numpy().tolist() == [1.0, 2.0]
    assert ember.concat([x, x], 0).shape == (2, 2)
    assert ember.equal(x, 1.0).numpy().tolist() == [[True, False]]


# --- ember.strings ------------------------------------------------------------------------


def _map(fn, words):
    return np.vectorize(fn, otypes=[object])(_ref(words)).tolist()


@pytest.mark.parametrize("value", ["", "solo", WORDS, [[]]])
def test_elementwise_ops_match_python(value):
    t = ember.constant(value) if value != [[]] else ember.constant(np.empty((1, 0), dtype=object))
    ref = t.numpy()
    ref = np.array(ref, dtype=object)

    def check(got, fn, dtype=None):
        expected = np.vectorize(fn, otypes=[object])(ref) if ref.size else np.empty(ref.shape, object)
        assert got.shape == ref.shape
        if dtype is not None:
            assert got.dtype == dtype
        assert np.asarray(got.numpy(), dtype=object).tolist() == expected.tolist()

    check(ember.strings.length(t), len, ember.int32)
    check(ember.strings.length(t, unit="UTF8_CHAR"), lambda b: len(b.decode()), ember.int32)
    check(ember.strings.upper(t), lambda b: bytes(c - 32 if 97 <= c <= 122 else c for c in b))
    check(ember.strings.lower(t), lambda b: bytes(c + 32 if 65 <= c <= 90 else c for c in b))
    check(ember.strings.upper(t, encoding="utf-8"), lambda b: b.decode().upper().encode())
    check(ember.strings.strip(t), lambda b: b.strip(b" \t\n\r\x0b\x0c"))
    check(ember.strings.regex_full_match(t, r"[a-z ]*"), lambda b: re.fullmatch(rb"[a-z ]*", b) is not None)
    check(ember.strings.regex_replace(t, r"([aeiou])", r"<\1>"), lambda b: re.sub(rb"([aeiou])", rb"<\1>", b))
    check(ember.strings.regex_replace(t, "a", "A", replace_global=False), lambda b: b.replace(b"a", b"A", 1))
    check(ember.strings.join([t, "|", t]), lambda b: b + b"|" + b)
    check(ember.strings.join([t, t], separator="--"), lambda b: b + b"--" + b)
    from ember._strings._fingerprint import fingerprint64  # checked against published values below
    check(ember.strings.to_hash_bucket_fast(t, 7), lambda b: fingerprint64(b) % 7, ember.int64)


def test_lower_ascii_only_by_default():
    assert ember.strings.lower("ÀB").numpy() == "Àb".encode()
    assert ember.strings.lower("ÀB", encoding="utf-8").numpy() == "àb".encode()


def test_regex_rewrite_groups_and_errors():
    assert ember.strings.regex_replace("ab", "(a)(b)", r"\2\1\0\\").numpy() == b"baab\\"
    with pytest.raises(errors.InvalidArgumentError, match="group 2"):
        ember.strings.regex_replace("ab", "(a)", r"\2")
    with pytest.raises(errors.InvalidArgumentError, match="regex_full_match"):
        ember.strings.regex_full_match("a", "(")


def test_substr():
    words = ["hello", "", "héllo wörld"]
    t = ember.constant(words)
    raw = [w.encode() for w in words]
    assert ember.strings.substr(t, 0, 3).numpy().tolist() == [w[:3] for w in raw]
    assert ember.strings.substr(t, [1, 0, 2], 100).numpy().tolist() == [raw[0][1:], b"", raw[2][2:]]
    assert ember.strings.substr("hello", -3, 2).numpy() == b"ll"
    chars = ember.strings.substr(t[2], 1, 4, unit="UTF8_CHAR").numpy()
    assert chars == words[2][1:5].encode()
    with pytest.raises(errors.InvalidArgumentError, match="out of range"):
        ember.strings.substr(t, 6, 1)
    with pytest.raises(errors.InvalidArgumentError, match="out of range"):
        ember.strings.substr("ab", -3, 1)
    with pytest.raises(ValueError, match="unit"):
        ember.strings.substr("ab", 0, 1, unit="CHAR")


def test_length_counts_invalid_utf8_by_lead_bytes():
    data = b"a\xc3\xa9\xff"
    expected = sum(1 for b in data if b & 0xC0 != 0x80)
    assert int(ember.strings.length(data, unit="UTF8_CHAR")) == expected


def test_reduce_join():
    ref = _ref(WORDS)
    t = ember.constant(WORDS)
    assert ember.strings.reduce_join(t).numpy() == b"".join(ref.ravel())
    assert ember.strings.reduce_join(t, axis=1, separator=",").numpy().tolist() == [b",".join(r) for r in ref]
    assert ember.strings.reduce_join(t, axis=0).numpy().tolist() == [b"".join(c) for c in ref.T]
    assert ember.strings.reduce_join(t, axis=-1, keepdims=True).shape == (2, 1)
    assert ember.strings.reduce_join(ember.constant(np.empty((2, 0), object)), axis=1).numpy().tolist() == [b"", b""]
    with pytest.raises(errors.InvalidArgumentError, match="reduce_join"):
        ember.strings.reduce_join(t, axis=2)


def test_split_scalar_and_ragged():
    assert ember.strings.split("a b  c").numpy().tolist() == b"a b  c".split()
    assert ember.strings.split("a,,b", sep=",").numpy().tolist() == b"a,,b".split(b",")
    assert ember.strings.split("a,b,c", sep=",", maxsplit=1).numpy().tolist() == b"a,b,c".split(b",", 1)
    ragged = ember.strings.split(WORDS[1])
    assert isinstance(ragged, ember.RaggedTensor)
    assert ragged.to_list() == [w.encode().split() for w in WORDS[1]]
    nested = ember.strings.split(WORDS, sep=",")
    assert nested.to_list() == [[w.encode().split(b",") for w in row] for row in WORDS]
    assert nested.dtype == ember.string


def test_bytes_split_and_unicode():
    assert ember.strings.bytes_split("abc").numpy().tolist() == [b"a", b"b", b"c"]
    assert ember.strings.bytes_split(["ab", ""]).to_list() == [[b"a", b"b"], []]
    words = ["héllo", "", "日本"]
    codes = ember.strings.unicode_decode(words, "UTF-8")
    assert codes.to_list() == [[ord(c) for c in w] for w in words]
    assert codes.dtype == ember.int32
    assert ember.strings.unicode_decode("añ", "UTF-8").numpy().tolist() == [ord("a"), ord("ñ")]
    back = ember.strings.unicode_encode(codes, "UTF-8")
    assert back.numpy().tolist() == [w.encode() for w in words]
    dense = ember.constant([[104, 105], [233, 33]])
    assert ember.strings.unicode_encode(dense, "UTF-16-BE").numpy().tolist() == ["hi".encode("utf-16-be"),
                                                                                 "é!".encode("utf-16-be")]
    assert ember.strings.unicode_decode("hé".encode("utf-16-be"), "UTF-16-BE").numpy().tolist() == [104, 233]


def test_unicode_errors():
    bad = b"a\xffb"
    assert ember.strings.unicode_decode(bad, "UTF-8").numpy().tolist() == [97, 0xFFFD, 98]
    assert ember.strings.unicode_decode(bad, "UTF-8", errors="ignore").numpy().tolist() == [97, 98]
    assert ember.strings.unicode_decode(bad, "UTF-8", replacement_char=63).numpy().tolist() == [97, 63, 98]
    with pytest.raises(errors.InvalidArgumentError, match="unicode_decode"):
        ember.strings.unicode_decode(bad, "UTF-8", errors="strict")
    assert ember.strings.unicode_decode("a\x01", "UTF-8", replace_control_characters=True).numpy().tolist() == \
        [97, 0xFFFD]
    assert ember.strings.unicode_encode([97, 0xD800, 98], "UTF-8").numpy() == "a\ufffdb".encode()
    with pytest.raises(errors.InvalidArgumentError):
        ember.strings.unicode_encode([-1], "UTF-8", errors="strict")
    with pytest.raises(ValueError, match="encoding"):
        ember.strings.unicode_decode("a", "latin-1")


@pytest.mark.parametrize("out_type,texts,ref", [
    (ember.float32, ["1.5", " -2e3 ", "inf", ".5"], lambda s: np.float32(float(s))),
    (ember.float64, ["0.1", "1e-300"], float),
    (ember.int32, ["12", "-7", "+3"], int),
    (ember.int64, ["9000000000"], int),
])
def test_to_number(out_type, texts, ref):
    got = ember.strings.to_number(texts, out_type=out_type)
    assert got.dtype == out_type
    assert got.numpy().tolist() == [ref(s) for s in texts]


@pytest.mark.parametrize("out_type,text", [(ember.int32, "1.5"), (ember.int32, "3000000000"), (ember.float32, "abc"),
                                           (ember.float32, "1_0"), (ember.int64, "")])
def test_to_number_errors(out_type, text):
    with pytest.raises(errors.InvalidArgumentError, match="to_number"):
        ember.strings.to_number(text, out_type)


def test_to_number_bad_out_type():
    with pytest.raises(TypeError, match="out_type"):
        ember.strings.to_number("1", ember.bool)


@pytest.mark.parametrize("value,kwargs,fmt", [
    ([1.5, -0.25], {}, "%f"),
    ([1.5, 1234.5678], {"precision": 2}, "%.2f"),
    ([1.5e10], {"scientific": True}, "%e"),
    ([0.0001, 123456789.0], {"shortest": True}, "%g"),
    ([3.25], {"width": 10, "fill": "0", "precision": 1}, "%010.1f"),
])
def test_as_string_floats(value, kwargs, fmt):
    got = ember.strings.as_string(ember.constant(value, dtype=ember.float64), **kwargs)
    assert got.numpy().tolist() == [(fmt % v).encode() for v in value]


def test_as_string_ints_bools_complex():
    assert ember.strings.as_string([7, -12]).numpy().tolist() == [b"7", b"-12"]
    assert ember.strings.as_string([7], width=4).numpy().tolist() == [b"   7"]
    assert ember.strings.as_string([True, False]).numpy().tolist() == [b"true", b"false"]
    c = ember.constant([1 + 2j], dtype=ember.complex64)
    assert ember.strings.as_string(c, precision=1).numpy().tolist() == [b"(1.0,2.0)"]
    with pytest.raises(ValueError, match="precision"):
        ember.strings.as_string([1], precision=2)
    with pytest.raises(TypeError, match="as_string"):
        ember.strings.as_string(ember.constant("a"))
    with pytest.raises(ValueError, match="fill"):
        ember.strings.as_string([1.0], fill="ab")


def test_format():
    got = ember.strings.format("x={} y={}!", [ember.constant(3), ember.constant("hi")])
    assert got.numpy() == b"x=3 y=hi!"
    got = ember.strings.format("{}", ember.constant(np.arange(10)), summarize=2)
    assert got.numpy() == b"[0 1 ... 8 9]"
    got = ember.strings.format("{}", ember.constant([[1, 2], [3, 4]]))
    assert got.numpy() == b"[[1 2]\n [3 4]]"
    assert ember.strings.format("<>", [ember.constant(["a", "b"])], placeholder="<>").numpy() == b'["a" "b"]'
    with pytest.raises(errors.InvalidArgumentError, match="placeholders"):
        ember.strings.format("{} {}", [ember.constant(1)])


def test_hash_bucket_is_farmhash_fingerprint64():
    from ember._strings._fingerprint import fingerprint64
    # Published Fingerprint64 values (FarmHash's farmhashna::Hash64), one per length class.
    known = {b"": 11160318154034397263, b"test": 8581389452482819506,
             b"test" * 8: (-4196240717365766262) % 2 ** 64, b"test" * 64: 3500507768004279527,
             b"dXB@tDQ-v5<H]rq2Pcc*s>nC-[Mdy": 8365906589669344754,
             b"F7479877-4690-4A44-AFC9-8FE987EA512F:some_other_id": 6862335115798125349,
             b"Q": 13816109650407654260, b"e#p8": 252499459662674074}
    for data, value in known.items():
        assert fingerprint64(data) == value, data
    # TensorFlow's documented example.
    assert ember.strings.to_hash_bucket_fast(["Hello", "TensorFlow", "2.x"], 3).numpy().tolist() == [0, 2, 2]
    with pytest.raises(ValueError, match="num_buckets"):
        ember.strings.to_hash_bucket_fast("a", 0)


def test_ops_reject_numeric_input():
    for op in (ember.strings.length, ember.strings.upper, ember.strings.strip, ember.strings.split,
               ember.strings.bytes_split, lambda t: ember.strings.to_number(t)):
        with pytest.raises(TypeError, match="expected a string tensor"):
            op(ember.constant([1.0]))


# --- Inside @ember.function (Note [String tensors in functions]) ----------------------


def test_function_with_string_constants_traces():
    @ember.function
    def f(x):
        return ember.strings.length(ember.constant(["ab", "c"])) + x

    assert f(ember.constant([1, 1])).numpy().tolist() == [3, 2]
    assert f.get_concrete_function(ember.constant([0, 0])) is not None  # a real graph


def test_function_with_string_argument_runs_eagerly():
    @ember.function
    def f(s):
        return ember.strings.upper(s)

    assert f(ember.constant(["ab"])).numpy().tolist() == [b"AB"]
    assert f(ember.constant(["cd"])).numpy().tolist() == [b"CD"]  # not the first call's value
    with pytest.raises(ValueError, match="string tensors"):
        f.get_concrete_function(ember.constant(["x"]))


def test_function_computing_strings_from_arguments_runs_eagerly():
    @ember.function
    def f(x):
        return ember.strings.to_number(ember.strings.as_string(x * 2))

    assert f(ember.constant([1.5])).numpy().tolist() == [3.0]
    assert f(ember.constant([2.5])).numpy().tolist() == [5.0]


def test_tensor_spec_of_strings():
    spec = ember.TensorSpec.from_tensor(ember.constant([["a"]]))
    assert spec == ember.TensorSpec((1, 1), ember.string) and spec.dtype.name == "string"
    assert spec.is_compatible_with(ember.constant([["b"]]))
    assert not spec.is_compatible_with(ember.constant([[1.0]]))


def test_function_with_string_signature_runs_eagerly():
    @ember.function(input_signature=[ember.TensorSpec([None], ember.string)])
    def f(s):
        return ember.strings.length(s)

    assert f(ember.constant(["abc", ""])).numpy().tolist() == [3, 0]


def test_print_shows_strings_as_tf_print(capsys):
    ember.print(ember.constant(["a", "b"]), "and", ember.constant("x"))
    assert capsys.readouterr().err == '["a" "b"] and x\n'


def test_ragged_strings_to_tensor():
    texts = ["a b c", "d", ""]
    pieces = [t.encode().split() for t in texts]
    width = max(len(p) for p in pieces)
    ragged = ember.strings.split(texts)
    assert ragged.to_tensor().numpy().tolist() == [p + [b""] * (width - len(p)) for p in pieces]
    assert ragged.to_tensor(default_value="-").numpy().tolist() == [p + [b"-"] * (width - len(p)) for p in pieces]
    assert ragged.to_tensor(shape=[2, 2]).numpy().tolist() == [[b"a", b"b"], [b"d", b""]]
