"""ember.summary: TensorBoard event files (``tf.summary``): file writers, scalars, histograms, text.

Events are TFRecords of TensorFlow's Event protos (ember.io's record
framing, ember._wire's protobuf encoding), laid out as TensorFlow 2 writes
them, so TensorBoard reads the log directories (docs/summary.md).
"""

from ember.summary import experimental
from ember.summary._ops import histogram, scalar, text, write
from ember.summary._writer import (SummaryWriter, create_file_writer, create_noop_writer, flush, record_if,
                                   should_record_summaries)

__all__ = ["SummaryWriter", "create_file_writer", "create_noop_writer", "experimental", "flush", "histogram",
           "record_if", "scalar", "should_record_summaries", "text", "write"]
