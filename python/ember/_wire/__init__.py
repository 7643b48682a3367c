"""Byte formats shared by Ember's readers and writers of TensorFlow's files:
CRC-32C with its masking (TFRecord, tensor bundles) and the protocol buffer
wire format (TensorProto, tensor bundle entries, object graphs)."""
