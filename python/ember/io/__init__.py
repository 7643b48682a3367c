"""ember.io: files, CSV, TFRecords and serialized tensors (``tf.io``).

File contents are string tensors (ember/_strings/). Reading and writing
files happens when the op is called; inside ``@ember.function`` a call
stops the trace and the function runs eagerly at each call, so files are
read and written at every call as in TensorFlow (docs/strings_and_files.md).
"""

from ember.io import gfile
from ember.io._csv import decode_csv
from ember.io._files import read_file, write_file
from ember.io._tensor_proto import decode_raw, parse_tensor, serialize_tensor
from ember.io._tfrecord import TFRecordOptions, TFRecordWriter

__all__ = ["TFRecordOptions", "TFRecordWriter", "decode_csv", "decode_raw", "gfile", "parse_tensor", "read_file",
           "serialize_tensor", "write_file"]
