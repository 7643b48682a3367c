"""Ember's op code generator: op_defs/*.yaml -> C++ tables, Python bindings, docs."""
