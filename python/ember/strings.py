"""ember.strings: string ops (``tf.strings``) on host-side string tensors.

String tensors (``dtype=ember.string``) hold bytes in host memory; these ops
run with NumPy and Python on the host (Note [Host string dtype] in
ember/dtypes.py). docs/strings_and_files.md says what works inside
``@ember.function``.
"""

from ember._strings._fingerprint import to_hash_bucket_fast
from ember._strings._numbers import as_string, format, to_number  # noqa: A004 - TensorFlow's name
from ember._strings._pieces import bytes_split, split, unicode_decode, unicode_encode
from ember._strings._text_ops import (
    join, length, lower, reduce_join, regex_full_match, regex_replace, strip, substr, upper)

__all__ = ["as_string", "bytes_split", "format", "join", "length", "lower", "reduce_join", "regex_full_match",
           "regex_replace", "split", "strip", "substr", "to_hash_bucket_fast", "to_number", "unicode_decode",
           "unicode_encode", "upper"]
