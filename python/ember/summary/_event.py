"""TensorBoard's event protos (Event, Summary, HistogramProto, SummaryMetadata) as protowire schemas,
and the reader that decodes an event file back (for tests and tools).

Field numbers are those of TensorFlow's event.proto and summary.proto; the
tensor of a summary value is a TensorProto, written by io.serialize_tensor
and kept here as bytes (Note [Serialized tensor format]).
"""

from ember._wire.protowire import Field, decode, encode

_PLUGIN_DATA = {1: Field("plugin_name", "string"), 2: Field("content", "bytes")}
SUMMARY_METADATA = {1: Field("plugin_data", "message", message=_PLUGIN_DATA), 2: Field("display_name", "string"),
                    3: Field("summary_description", "string"), 4: Field("data_class", "enum")}
HISTOGRAM = {1: Field("min", "double"), 2: Field("max", "double"), 3: Field("num", "double"),
             4: Field("sum", "double"), 5: Field("sum_squares", "double"),
             6: Field("bucket_limit", "double", repeated=True), 7: Field("bucket", "double", repeated=True)}
_VALUE = {1: Field("tag", "string"), 2: Field("simple_value", "float"), 5: Field("histo", "message", message=HISTOGRAM),
          7: Field("node_name", "string"), 8: Field("tensor", "bytes"),
          9: Field("metadata", "message", message=SUMMARY_METADATA)}
SUMMARY = {1: Field("value", "message", repeated=True, message=_VALUE)}
EVENT = {1: Field("wall_time", "double"), 2: Field("step", "int64"), 3: Field("file_version", "string"),
         5: Field("summary", "message", message=SUMMARY)}

# SummaryMetadata.data_class: how TensorBoard's data providers read the tensor.
DATA_CLASS_SCALAR, DATA_CLASS_TENSOR = 1, 2
FILE_VERSION = "brain.Event:2"


def encode_event(event):
    return encode(event, EVENT)


def read_events(path):
    """The events of an event file as dicts, in order (``summary.value[i].tensor`` holds TensorProto bytes)."""
    from ember.io._tfrecord import read_records
    return [decode(record, EVENT) for record in read_records(str(path), func="read_events")]
