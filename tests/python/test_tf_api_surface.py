"""ember's public surface against TensorFlow's: parameter names and order, and public names.

A TensorFlow program is ported by changing its import, so positional arguments must land on
the same parameters, and every public name must be one TensorFlow has or a deliberate ember
extension (listed below with why). TensorFlow's data was captured once from TensorFlow 2.21
(inspect.signature and dir on the tf modules) and is kept here; the tests do not import it.
"""

import inspect

import pytest

import ember

# TensorFlow 2.21's parameter names, in order, for the ember functions and classes that TF also
# has (inspect.signature on tf.<name>; tf.Variable's __init__). Functions taking *args are left out.
TF_SIGNATURES = {
    'GradientTape': ['persistent', 'watch_accessed_variables'],
    'Module': ['name'],
    'train.Checkpoint': ['root'],
    'distribute.MultiWorkerMirroredStrategy': ['cluster_resolver', 'communication_options'],
    'train.CheckpointManager': [
        'checkpoint', 'directory', 'max_to_keep', 'keep_checkpoint_every_n_hours', 'checkpoint_name', 'step_counter',
        'checkpoint_interval', 'init_fn'
    ],
    'train.latest_checkpoint': ['checkpoint_dir', 'latest_filename'],
    'saved_model.save': ['obj', 'export_dir', 'signatures', 'options'],
    'saved_model.load': ['export_dir', 'tags', 'options'],
    'saved_model.contains_saved_model': ['export_dir'],
    'saved_model.LoadOptions': [
        'allow_partial_checkpoint', 'experimental_io_device', 'experimental_skip_checkpoint',
        'experimental_variable_policy', 'experimental_load_function_aliases'
    ],
    'train.list_variables': ['ckpt_dir_or_file'],
    'train.load_checkpoint': ['ckpt_dir_or_file'],
    'TensorShape': ['dims'],
    'TensorSpec': ['shape', 'dtype', 'name'],
    'Variable': [
        'initial_value', 'trainable', 'validate_shape', 'caching_device', 'name', 'variable_def', 'dtype',
        'import_scope', 'constraint', 'synchronization', 'aggregation', 'shape',
        'experimental_enable_variable_lifting'
    ],
    'abs': ['x', 'name'],
    'SparseTensor': ['indices', 'values', 'dense_shape'],
    'sparse.to_dense': ['sp_input', 'default_value', 'validate_indices', 'name'],
    'sparse.from_dense': ['tensor', 'name'],
    'sparse.reorder': ['sp_input', 'name'],
    'sparse.transpose': ['sp_input', 'perm', 'name'],
    'sparse.add': ['a', 'b', 'threshold'],
    'sparse.reduce_sum': ['sp_input', 'axis', 'keepdims', 'output_is_sparse', 'name'],
    'sparse.sparse_dense_matmul': ['sp_a', 'b', 'adjoint_a', 'adjoint_b', 'name'],
    'ragged.constant': ['pylist', 'dtype', 'ragged_rank', 'inner_shape', 'name', 'row_splits_dtype'],
    'RaggedTensor.from_row_splits': ['values', 'row_splits', 'name', 'validate'],
    'RaggedTensor.from_row_lengths': ['values', 'row_lengths', 'name', 'validate'],
    'RaggedTensor.from_value_rowids': ['values', 'value_rowids', 'nrows', 'name', 'validate'],
    'RaggedTensor.from_tensor': ['tensor', 'lengths', 'padding', 'ragged_rank', 'name', 'row_splits_dtype'],
    'map_fn': ['fn', 'elems', 'dtype', 'parallel_iterations', 'back_prop', 'swap_memory', 'infer_shape', 'name',
               'fn_output_signature'],
    'vectorized_map': ['fn', 'elems', 'fallback_to_while_loop', 'warn'],
    'scan': ['fn', 'elems', 'initializer', 'parallel_iterations', 'back_prop', 'swap_memory', 'infer_shape',
             'reverse', 'name'],
    'foldl': ['fn', 'elems', 'initializer', 'parallel_iterations', 'back_prop', 'swap_memory', 'name'],
    'foldr': ['fn', 'elems', 'initializer', 'parallel_iterations', 'back_prop', 'swap_memory', 'name'],
    'switch_case': ['branch_index', 'branch_fns', 'default', 'name'],
    'py_function': ['func', 'inp', 'Tout', 'name'],
    'numpy_function': ['func', 'inp', 'Tout', 'stateful', 'name'],
    'TensorArray': [
        'dtype', 'size', 'dynamic_size', 'clear_after_read', 'tensor_array_name', 'handle', 'flow', 'infer_shape',
        'element_shape', 'colocate_with_first_write_call', 'name'
    ],
    'acos': ['x', 'name'],
    'acosh': ['x', 'name'],
    'add': ['x', 'y', 'name'],
    'add_n': ['inputs', 'name'],
    'clip_by_global_norm': ['t_list', 'clip_norm', 'use_norm', 'name'],
    'clip_by_norm': ['t', 'clip_norm', 'axes', 'name'],
    'linalg.adjoint': ['matrix', 'name'],
    'math.segment_sum': ['data', 'segment_ids', 'name'],
    'math.segment_mean': ['data', 'segment_ids', 'name'],
    'math.segment_max': ['data', 'segment_ids', 'name'],
    'math.segment_min': ['data', 'segment_ids', 'name'],
    'math.segment_prod': ['data', 'segment_ids', 'name'],
    'math.unsorted_segment_sum': ['data', 'segment_ids', 'num_segments', 'name'],
    'math.unsorted_segment_mean': ['data', 'segment_ids', 'num_segments', 'name'],
    'math.unsorted_segment_sqrt_n': ['data', 'segment_ids', 'num_segments', 'name'],
    'math.unsorted_segment_max': ['data', 'segment_ids', 'num_segments', 'name'],
    'math.unsorted_segment_min': ['data', 'segment_ids', 'num_segments', 'name'],
    'math.unsorted_segment_prod': ['data', 'segment_ids', 'num_segments', 'name'],
    'math.bincount': ['arr', 'weights', 'minlength', 'maxlength', 'dtype', 'name', 'axis', 'binary_output'],
    'unique': ['x', 'out_idx', 'name'],
    'unique_with_counts': ['x', 'out_idx', 'name'],
    'searchsorted': ['sorted_sequence', 'values', 'side', 'out_type', 'name'],
    'reverse_sequence': ['input', 'seq_lengths', 'seq_axis', 'batch_axis', 'name'],
    'histogram_fixed_width': ['values', 'value_range', 'nbins', 'dtype', 'name'],
    'random.shuffle': ['value', 'seed', 'name'],
    'random.categorical': ['logits', 'num_samples', 'dtype', 'seed', 'name'],
    'random.stateless_categorical': ['logits', 'num_samples', 'seed', 'dtype', 'name'],
    'linalg.band_part': ['input', 'num_lower', 'num_upper', 'name'],
    'linalg.cholesky': ['input', 'name'],
    'linalg.cholesky_solve': ['chol', 'rhs', 'name'],
    'linalg.det': ['input', 'name'],
    'linalg.diag': ['diagonal', 'name', 'k', 'num_rows', 'num_cols', 'padding_value', 'align'],
    'linalg.diag_part': ['input', 'name', 'k', 'padding_value', 'align'],
    'linalg.eigh': ['tensor', 'name'],
    'linalg.eigvalsh': ['tensor', 'name'],
    'linalg.global_norm': ['t_list', 'name'],
    'linalg.inv': ['input', 'adjoint', 'name'],
    'linalg.logdet': ['matrix', 'name'],
    'linalg.lstsq': ['matrix', 'rhs', 'l2_regularizer', 'fast', 'name'],
    'linalg.matrix_transpose': ['a', 'name', 'conjugate'],
    'linalg.matvec': ['a', 'b', 'transpose_a', 'adjoint_a', 'a_is_sparse', 'b_is_sparse', 'name'],
    'linalg.qr': ['input', 'full_matrices', 'name'],
    'linalg.slogdet': ['input', 'name'],
    'linalg.solve': ['matrix', 'rhs', 'adjoint', 'name'],
    'linalg.svd': ['tensor', 'full_matrices', 'compute_uv', 'name'],
    'linalg.trace': ['x', 'name'],
    'linalg.triangular_solve': ['matrix', 'rhs', 'lower', 'adjoint', 'name'],
    'nn.conv1d': ['input', 'filters', 'stride', 'padding', 'data_format', 'dilations', 'name'],
    'nn.conv3d': ['input', 'filters', 'strides', 'padding', 'data_format', 'dilations', 'name'],
    'nn.max_pool3d': ['input', 'ksize', 'strides', 'padding', 'data_format', 'name'],
    'nn.avg_pool3d': ['input', 'ksize', 'strides', 'padding', 'data_format', 'name'],
    'image.resize': ['images', 'size', 'method', 'preserve_aspect_ratio', 'antialias', 'name'],
    'signal.fft': ['input', 'name'],
    'signal.ifft': ['input', 'name'],
    'signal.rfft': ['input_tensor', 'fft_length', 'name'],
    'signal.irfft': ['input_tensor', 'fft_length', 'name'],
    'signal.fft2d': ['input', 'name'],
    'signal.ifft2d': ['input', 'name'],
    'signal.rfft2d': ['input_tensor', 'fft_length', 'name'],
    'signal.irfft2d': ['input_tensor', 'fft_length', 'name'],
    'math.reduce_euclidean_norm': ['input_tensor', 'axis', 'keepdims', 'name'],
    'nn.moments': ['x', 'axes', 'shift', 'keepdims', 'name'],
    'argmax': ['input', 'axis', 'output_type', 'name'],
    'argmin': ['input', 'axis', 'output_type', 'name'],
    'argsort': ['values', 'axis', 'direction', 'stable', 'name'],
    'as_dtype': ['type_value'],
    'asin': ['x', 'name'],
    'asinh': ['x', 'name'],
    'atan': ['x', 'name'],
    'atan2': ['y', 'x', 'name'],
    'atanh': ['x', 'name'],
    'bitwise.bitwise_and': ['x', 'y', 'name'],
    'bitwise.bitwise_or': ['x', 'y', 'name'],
    'bitwise.bitwise_xor': ['x', 'y', 'name'],
    'boolean_mask': ['tensor', 'mask', 'axis', 'name'],
    'broadcast_to': ['input', 'shape', 'name'],
    'cast': ['x', 'dtype', 'name'],
    'clip_by_value': ['t', 'clip_value_min', 'clip_value_max', 'name'],
    'concat': ['values', 'axis', 'name'],
    'cond': ['pred', 'true_fn', 'false_fn', 'name'],
    'config.LogicalDevice': ['name', 'device_type'],
    'config.PhysicalDevice': ['name', 'device_type'],
    'config.experimental.enable_tensor_float_32_execution': ['enabled'],
    'config.experimental.tensor_float_32_execution_enabled': [],
    'config.functions_run_eagerly': [],
    'config.list_logical_devices': ['device_type'],
    'config.list_physical_devices': ['device_type'],
    'config.run_functions_eagerly': ['run_eagerly'],
    'constant': ['value', 'dtype', 'shape', 'name'],
    'convert_to_tensor': ['value', 'dtype', 'dtype_hint', 'name'],
    'cos': ['x', 'name'],
    'cosh': ['x', 'name'],
    'cumsum': ['x', 'axis', 'exclusive', 'reverse', 'name'],
    'custom_gradient': ['f'],
    'data.Dataset': ['variant_tensor'],
    'data.Iterator': [],
    'debugging.check_numerics': ['tensor', 'message', 'name'],
    'device': ['device_name'],
    'divide': ['x', 'y', 'name'],
    'equal': ['x', 'y', 'name'],
    'exp': ['x', 'name'],
    'expand_dims': ['input', 'axis', 'name'],
    'eye': ['num_rows', 'num_columns', 'batch_shape', 'dtype', 'name'],
    'fill': ['dims', 'value', 'name', 'layout'],
    'floor': ['x', 'name'],
    'function': [
        'func', 'input_signature', 'autograph', 'jit_compile', 'reduce_retracing', 'experimental_implements',
        'experimental_autograph_options', 'experimental_attributes', 'experimental_relax_shapes',
        'experimental_compile', 'experimental_follow_type_hints'
    ],
    'gather': ['params', 'indices', 'validate_indices', 'axis', 'batch_dims', 'name'],
    'gather_nd': ['params', 'indices', 'batch_dims', 'name', 'bad_indices_policy'],
    'get_current_name_scope': [],
    'greater': ['x', 'y', 'name'],
    'greater_equal': ['x', 'y', 'name'],
    'identity': ['input', 'name'],
    'identity_n': ['input', 'name'],
    'init_scope': [],
    'initializers.Constant': ['value'],
    'initializers.GlorotNormal': ['seed', 'input_axes', 'output_axes'],
    'initializers.GlorotUniform': ['seed', 'input_axes', 'output_axes'],
    'initializers.HeNormal': ['seed', 'input_axes', 'output_axes'],
    'initializers.HeUniform': ['seed', 'input_axes', 'output_axes'],
    'initializers.Initializer': [],
    'initializers.LecunNormal': ['seed', 'input_axes', 'output_axes'],
    'initializers.LecunUniform': ['seed', 'input_axes', 'output_axes'],
    'initializers.Ones': [],
    'initializers.RandomNormal': ['mean', 'stddev', 'seed'],
    'initializers.RandomUniform': ['minval', 'maxval', 'seed'],
    'initializers.TruncatedNormal': ['mean', 'stddev', 'seed'],
    'initializers.VarianceScaling': ['scale', 'mode', 'distribution', 'seed', 'input_axes', 'output_axes'],
    'initializers.Zeros': [],
    'initializers.constant': ['value'],
    'initializers.get': ['identifier'],
    'initializers.glorot_normal': ['seed', 'input_axes', 'output_axes'],
    'initializers.glorot_uniform': ['seed', 'input_axes', 'output_axes'],
    'initializers.he_normal': ['seed', 'input_axes', 'output_axes'],
    'initializers.he_uniform': ['seed', 'input_axes', 'output_axes'],
    'initializers.lecun_normal': ['seed', 'input_axes', 'output_axes'],
    'initializers.lecun_uniform': ['seed', 'input_axes', 'output_axes'],
    'initializers.ones': [],
    'initializers.random_normal': ['mean', 'stddev', 'seed'],
    'initializers.random_uniform': ['minval', 'maxval', 'seed'],
    'initializers.truncated_normal': ['mean', 'stddev', 'seed'],
    'initializers.variance_scaling': ['scale', 'mode', 'distribution', 'seed', 'input_axes', 'output_axes'],
    'initializers.zeros': [],
    'keras.initializers.Constant': ['value'],
    'keras.initializers.GlorotNormal': ['seed', 'input_axes', 'output_axes'],
    'keras.initializers.GlorotUniform': ['seed', 'input_axes', 'output_axes'],
    'keras.initializers.HeNormal': ['seed', 'input_axes', 'output_axes'],
    'keras.initializers.HeUniform': ['seed', 'input_axes', 'output_axes'],
    'keras.initializers.Initializer': [],
    'keras.initializers.LecunNormal': ['seed', 'input_axes', 'output_axes'],
    'keras.initializers.LecunUniform': ['seed', 'input_axes', 'output_axes'],
    'keras.initializers.Ones': [],
    'keras.initializers.RandomNormal': ['mean', 'stddev', 'seed'],
    'keras.initializers.RandomUniform': ['minval', 'maxval', 'seed'],
    'keras.initializers.TruncatedNormal': ['mean', 'stddev', 'seed'],
    'keras.initializers.VarianceScaling': ['scale', 'mode', 'distribution', 'seed', 'input_axes', 'output_axes'],
    'keras.initializers.Zeros': [],
    'keras.initializers.constant': ['value'],
    'keras.initializers.glorot_normal': ['seed', 'input_axes', 'output_axes'],
    'keras.initializers.glorot_uniform': ['seed', 'input_axes', 'output_axes'],
    'keras.initializers.he_normal': ['seed', 'input_axes', 'output_axes'],
    'keras.initializers.he_uniform': ['seed', 'input_axes', 'output_axes'],
    'keras.initializers.lecun_normal': ['seed', 'input_axes', 'output_axes'],
    'keras.initializers.lecun_uniform': ['seed', 'input_axes', 'output_axes'],
    'keras.initializers.ones': [],
    'keras.initializers.random_normal': ['mean', 'stddev', 'seed'],
    'keras.initializers.random_uniform': ['minval', 'maxval', 'seed'],
    'keras.initializers.truncated_normal': ['mean', 'stddev', 'seed'],
    'keras.initializers.variance_scaling': ['scale', 'mode', 'distribution', 'seed', 'input_axes', 'output_axes'],
    'keras.initializers.zeros': [],
    'less': ['x', 'y', 'name'],
    'less_equal': ['x', 'y', 'name'],
    'linalg.eye': ['num_rows', 'num_columns', 'batch_shape', 'dtype', 'name'],
    'linalg.matmul': [
        'a', 'b', 'transpose_a', 'transpose_b', 'adjoint_a', 'adjoint_b', 'a_is_sparse', 'b_is_sparse',
        'output_type', 'grad_a', 'grad_b', 'name'
    ],
    'linalg.norm': ['tensor', 'ord', 'axis', 'keepdims', 'name'],
    'linalg.tensordot': ['a', 'b', 'axes', 'name'],
    'linspace': ['start', 'stop', 'num', 'name', 'axis'],
    'logical_and': ['x', 'y', 'name'],
    'logical_not': ['x', 'name'],
    'logical_or': ['x', 'y', 'name'],
    'math.abs': ['x', 'name'],
    'math.acos': ['x', 'name'],
    'math.acosh': ['x', 'name'],
    'math.add': ['x', 'y', 'name'],
    'math.add_n': ['inputs', 'name'],
    'math.argmax': ['input', 'axis', 'output_type', 'name'],
    'math.argmin': ['input', 'axis', 'output_type', 'name'],
    'math.asin': ['x', 'name'],
    'math.asinh': ['x', 'name'],
    'math.atan': ['x', 'name'],
    'math.atan2': ['y', 'x', 'name'],
    'math.atanh': ['x', 'name'],
    'math.ceil': ['x', 'name'],
    'math.cos': ['x', 'name'],
    'math.cosh': ['x', 'name'],
    'math.cumprod': ['x', 'axis', 'exclusive', 'reverse', 'name'],
    'math.cumsum': ['x', 'axis', 'exclusive', 'reverse', 'name'],
    'math.divide': ['x', 'y', 'name'],
    'math.equal': ['x', 'y', 'name'],
    'math.erf': ['x', 'name'],
    'math.erfc': ['x', 'name'],
    'math.exp': ['x', 'name'],
    'math.expm1': ['x', 'name'],
    'math.floor': ['x', 'name'],
    'math.floordiv': ['x', 'y', 'name'],
    'math.floormod': ['x', 'y', 'name'],
    'math.greater': ['x', 'y', 'name'],
    'math.greater_equal': ['x', 'y', 'name'],
    'math.is_finite': ['x', 'name'],
    'math.is_inf': ['x', 'name'],
    'math.is_nan': ['x', 'name'],
    'math.less': ['x', 'y', 'name'],
    'math.less_equal': ['x', 'y', 'name'],
    'math.log': ['x', 'name'],
    'math.log1p': ['x', 'name'],
    'math.log_softmax': ['logits', 'axis', 'name'],
    'math.logical_and': ['x', 'y', 'name'],
    'math.logical_not': ['x', 'name'],
    'math.logical_or': ['x', 'y', 'name'],
    'math.logical_xor': ['x', 'y', 'name'],
    'math.maximum': ['x', 'y', 'name'],
    'math.minimum': ['x', 'y', 'name'],
    'math.mod': ['x', 'y', 'name'],
    'math.multiply': ['x', 'y', 'name'],
    'math.negative': ['x', 'name'],
    'math.not_equal': ['x', 'y', 'name'],
    'math.pow': ['x', 'y', 'name'],
    'math.reciprocal': ['x', 'name'],
    'math.reduce_all': ['input_tensor', 'axis', 'keepdims', 'name'],
    'math.reduce_any': ['input_tensor', 'axis', 'keepdims', 'name'],
    'math.reduce_logsumexp': ['input_tensor', 'axis', 'keepdims', 'name'],
    'math.reduce_max': ['input_tensor', 'axis', 'keepdims', 'name'],
    'math.reduce_mean': ['input_tensor', 'axis', 'keepdims', 'name'],
    'math.reduce_min': ['input_tensor', 'axis', 'keepdims', 'name'],
    'math.reduce_prod': ['input_tensor', 'axis', 'keepdims', 'name'],
    'math.reduce_std': ['input_tensor', 'axis', 'keepdims', 'name'],
    'math.reduce_sum': ['input_tensor', 'axis', 'keepdims', 'name'],
    'math.reduce_variance': ['input_tensor', 'axis', 'keepdims', 'name'],
    'math.round': ['x', 'name'],
    'math.rsqrt': ['x', 'name'],
    'math.sigmoid': ['x', 'name'],
    'math.sign': ['x', 'name'],
    'math.sin': ['x', 'name'],
    'math.sinh': ['x', 'name'],
    'math.softmax': ['logits', 'axis', 'name'],
    'math.softplus': ['features', 'name'],
    'math.sqrt': ['x', 'name'],
    'math.square': ['x', 'name'],
    'math.squared_difference': ['x', 'y', 'name'],
    'math.xlogy': ['x', 'y', 'name'],
    'math.subtract': ['x', 'y', 'name'],
    'math.tan': ['x', 'name'],
    'math.tanh': ['x', 'name'],
    'math.top_k': ['input', 'k', 'sorted', 'index_type', 'name'],
    'math.truediv': ['x', 'y', 'name'],
    'matmul': [
        'a', 'b', 'transpose_a', 'transpose_b', 'adjoint_a', 'adjoint_b', 'a_is_sparse', 'b_is_sparse',
        'output_type', 'grad_a', 'grad_b', 'name'
    ],
    'maximum': ['x', 'y', 'name'],
    'minimum': ['x', 'y', 'name'],
    'multiply': ['x', 'y', 'name'],
    'name_scope': ['name'],
    'negative': ['x', 'name'],
    'nest.flatten': ['structure', 'expand_composites'],
    'nest.is_nested': ['seq'],
    'nest.pack_sequence_as': ['structure', 'flat_sequence', 'expand_composites'],
    'nn.avg_pool': ['input', 'ksize', 'strides', 'padding', 'data_format', 'name'],
    'nn.avg_pool1d': ['input', 'ksize', 'strides', 'padding', 'data_format', 'name'],
    'nn.avg_pool2d': ['input', 'ksize', 'strides', 'padding', 'data_format', 'name'],
    'nn.batch_normalization': ['x', 'mean', 'variance', 'offset', 'scale', 'variance_epsilon', 'name'],
    'nn.bias_add': ['value', 'bias', 'data_format', 'name'],
    'nn.conv2d': ['input', 'filters', 'strides', 'padding', 'data_format', 'dilations', 'name'],
    'nn.conv2d_transpose': [
        'input', 'filters', 'output_shape', 'strides', 'padding', 'data_format', 'dilations', 'name'
    ],
    'nn.depthwise_conv2d': ['input', 'filter', 'strides', 'padding', 'data_format', 'dilations', 'name'],
    'nn.dropout': ['x', 'rate', 'noise_shape', 'seed', 'name'],
    'nn.elu': ['features', 'name'],
    'nn.embedding_lookup': ['params', 'ids', 'max_norm', 'name'],
    'nn.gelu': ['features', 'approximate', 'name'],
    'nn.leaky_relu': ['features', 'alpha', 'name'],
    'nn.log_softmax': ['logits', 'axis', 'name'],
    'nn.max_pool': ['input', 'ksize', 'strides', 'padding', 'data_format', 'name'],
    'nn.max_pool1d': ['input', 'ksize', 'strides', 'padding', 'data_format', 'name'],
    'nn.max_pool2d': ['input', 'ksize', 'strides', 'padding', 'data_format', 'name'],
    'nn.relu': ['features', 'name'],
    'nn.relu6': ['features', 'name'],
    'nn.selu': ['features', 'name'],
    'nn.sigmoid': ['x', 'name'],
    'nn.sigmoid_cross_entropy_with_logits': ['labels', 'logits', 'name'],
    'nn.silu': ['features', 'beta'],
    'nn.softmax': ['logits', 'axis', 'name'],
    'nn.softmax_cross_entropy_with_logits': ['labels', 'logits', 'axis', 'name'],
    'nn.softplus': ['features', 'name'],
    'nn.sparse_softmax_cross_entropy_with_logits': ['labels', 'logits', 'name'],
    'nn.swish': ['features', 'beta'],
    'nn.tanh': ['x', 'name'],
    'nn.top_k': ['input', 'k', 'sorted', 'index_type', 'name'],
    'norm': ['tensor', 'ord', 'axis', 'keepdims', 'name'],
    'not_equal': ['x', 'y', 'name'],
    'one_hot': ['indices', 'depth', 'on_value', 'off_value', 'axis', 'dtype', 'name'],
    'ones': ['shape', 'dtype', 'name', 'layout'],
    'ones_like': ['input', 'dtype', 'name', 'layout'],
    'pad': ['tensor', 'paddings', 'mode', 'constant_values', 'name'],
    'pow': ['x', 'y', 'name'],
    'random.Generator': ['copy_from', 'state', 'alg'],
    'random.get_global_generator': [],
    'random.normal': ['shape', 'mean', 'stddev', 'dtype', 'seed', 'name'],
    'random.set_global_generator': ['generator'],
    'random.set_seed': ['seed'],
    'random.stateless_normal': ['shape', 'seed', 'mean', 'stddev', 'dtype', 'name', 'alg'],
    'random.stateless_truncated_normal': ['shape', 'seed', 'mean', 'stddev', 'dtype', 'name', 'alg'],
    'random.stateless_uniform': ['shape', 'seed', 'minval', 'maxval', 'dtype', 'name', 'alg'],
    'random.truncated_normal': ['shape', 'mean', 'stddev', 'dtype', 'seed', 'name'],
    'random.uniform': ['shape', 'minval', 'maxval', 'dtype', 'seed', 'name'],
    'range': ['start', 'limit', 'delta', 'dtype', 'name'],
    'rank': ['input', 'name'],
    'reduce_all': ['input_tensor', 'axis', 'keepdims', 'name'],
    'reduce_any': ['input_tensor', 'axis', 'keepdims', 'name'],
    'reduce_logsumexp': ['input_tensor', 'axis', 'keepdims', 'name'],
    'reduce_max': ['input_tensor', 'axis', 'keepdims', 'name'],
    'reduce_mean': ['input_tensor', 'axis', 'keepdims', 'name'],
    'reduce_min': ['input_tensor', 'axis', 'keepdims', 'name'],
    'reduce_prod': ['input_tensor', 'axis', 'keepdims', 'name'],
    'reduce_sum': ['input_tensor', 'axis', 'keepdims', 'name'],
    'reshape': ['tensor', 'shape', 'name'],
    'reverse': ['tensor', 'axis', 'name'],
    'roll': ['input', 'shift', 'axis', 'name'],
    'round': ['x', 'name'],
    'scatter_nd': ['indices', 'updates', 'shape', 'bad_indices_policy', 'name'],
    'shape': ['input', 'out_type', 'name'],
    'sigmoid': ['x', 'name'],
    'sign': ['x', 'name'],
    'sin': ['x', 'name'],
    'sinh': ['x', 'name'],
    'size': ['input', 'out_type', 'name'],
    'slice': ['input_', 'begin', 'size', 'name'],
    'sort': ['values', 'axis', 'direction', 'name'],
    'split': ['value', 'num_or_size_splits', 'axis', 'num', 'name'],
    'sqrt': ['x', 'name'],
    'square': ['x', 'name'],
    'squeeze': ['input', 'axis', 'name'],
    'stack': ['values', 'axis', 'name'],
    'stop_gradient': ['input', 'name'],
    'strided_slice': [
        'input_', 'begin', 'end', 'strides', 'begin_mask', 'end_mask', 'ellipsis_mask', 'new_axis_mask',
        'shrink_axis_mask', 'var', 'name'
    ],
    'subtract': ['x', 'y', 'name'],
    'tan': ['x', 'name'],
    'tanh': ['x', 'name'],
    'tensor_scatter_nd_update': ['tensor', 'indices', 'updates', 'name'],
    'tensordot': ['a', 'b', 'axes', 'name'],
    'tile': ['input', 'multiples', 'name'],
    'transpose': ['a', 'perm', 'conjugate', 'name'],
    'truediv': ['x', 'y', 'name'],
    'unstack': ['value', 'num', 'axis', 'name'],
    'where': ['condition', 'x', 'y', 'name'],
    'while_loop': [
        'cond', 'body', 'loop_vars', 'shape_invariants', 'parallel_iterations', 'back_prop', 'swap_memory',
        'maximum_iterations', 'name'
    ],
    'zeros': ['shape', 'dtype', 'name', 'layout'],
    'zeros_like': ['input', 'dtype', 'name', 'layout'],
    'strings.join': ['inputs', 'separator', 'name'],
    'strings.split': ['input', 'sep', 'maxsplit', 'name'],
    'strings.length': ['input', 'unit', 'name'],
    'strings.substr': ['input', 'pos', 'len', 'unit', 'name'],
    'strings.to_number': ['input', 'out_type', 'name'],
    'strings.as_string': ['input', 'precision', 'scientific', 'shortest', 'width', 'fill', 'name'],
    'strings.format': ['template', 'inputs', 'placeholder', 'summarize', 'name'],
    'strings.regex_full_match': ['input', 'pattern', 'name'],
    'strings.regex_replace': ['input', 'pattern', 'rewrite', 'replace_global', 'name'],
    'strings.lower': ['input', 'encoding', 'name'],
    'strings.upper': ['input', 'encoding', 'name'],
    'strings.strip': ['input', 'name'],
    'strings.reduce_join': ['inputs', 'axis', 'keepdims', 'separator', 'name'],
    'strings.unicode_decode': ['input', 'input_encoding', 'errors', 'replacement_char', 'replace_control_characters',
                               'name'],
    'strings.unicode_encode': ['input', 'output_encoding', 'errors', 'replacement_char', 'name'],
    'strings.bytes_split': ['input', 'name'],
    'strings.to_hash_bucket_fast': ['input', 'num_buckets', 'name'],
    'summary.create_file_writer': ['logdir', 'max_queue', 'flush_millis', 'filename_suffix', 'name',
                                   'experimental_trackable', 'experimental_mesh'],
    'summary.scalar': ['name', 'data', 'step', 'description'],
    'summary.histogram': ['name', 'data', 'step', 'buckets', 'description'],
    'summary.text': ['name', 'data', 'step', 'description'],
    'summary.write': ['tag', 'tensor', 'step', 'metadata', 'name'],
    'summary.flush': ['writer', 'name'],
    'summary.record_if': ['condition'],
    'summary.experimental.set_step': ['step'],
    'io.read_file': ['filename', 'name'],
    'io.write_file': ['filename', 'contents', 'name'],
    'io.decode_csv': ['records', 'record_defaults', 'field_delim', 'use_quote_delim', 'na_value', 'select_cols',
                      'name'],
    'io.serialize_tensor': ['tensor', 'name'],
    'io.parse_tensor': ['serialized', 'out_type', 'name'],
    'io.decode_raw': ['input_bytes', 'out_type', 'little_endian', 'fixed_length', 'name'],
    'io.TFRecordWriter': ['path', 'options'],
    'io.gfile.GFile': ['name', 'mode'],
    'io.gfile.rename': ['src', 'dst', 'overwrite'],
    'io.gfile.copy': ['src', 'dst', 'overwrite'],
    'data.TextLineDataset': ['filenames', 'compression_type', 'buffer_size', 'num_parallel_reads', 'name'],
    'data.TFRecordDataset': ['filenames', 'compression_type', 'buffer_size', 'num_parallel_reads', 'name'],
    'data.experimental.CsvDataset': [
        'filenames', 'record_defaults', 'compression_type', 'buffer_size', 'header', 'field_delim',
        'use_quote_delim', 'na_value', 'select_cols', 'exclude_cols', 'name'
    ],
    'data.experimental.make_csv_dataset': [
        'file_pattern', 'batch_size', 'column_names', 'column_defaults', 'label_name', 'select_columns',
        'field_delim', 'use_quote_delim', 'na_value', 'header', 'num_epochs', 'shuffle', 'shuffle_buffer_size',
        'shuffle_seed', 'prefetch_buffer_size', 'num_parallel_reads', 'sloppy', 'num_rows_for_inference',
        'compression_type', 'ignore_errors', 'encoding'
    ],
    'data.experimental.sample_from_datasets': ['datasets', 'weights', 'seed', 'stop_on_empty_dataset'],
    'data.experimental.choose_from_datasets': ['datasets', 'choice_dataset', 'stop_on_empty_dataset'],
    'data.Dataset.list_files': ['file_pattern', 'shuffle', 'seed', 'name'],
    'data.Dataset.interleave': ['self', 'map_func', 'cycle_length', 'block_length', 'num_parallel_calls',
                                'deterministic', 'name'],
    'data.Dataset.window': ['self', 'size', 'shift', 'stride', 'drop_remainder', 'name'],
    'data.Dataset.shard': ['self', 'num_shards', 'index', 'name'],
    'data.Dataset.flat_map': ['self', 'map_func', 'name'],
    'data.Dataset.sample_from_datasets': ['datasets', 'weights', 'seed', 'stop_on_empty_dataset',
                                          'rerandomize_each_iteration'],
    'data.Dataset.choose_from_datasets': ['datasets', 'choice_dataset', 'stop_on_empty_dataset'],
}

# The public names of each TensorFlow 2.21 namespace that ember also has ('' is the top level).
TF_NAMES = {
    '': [
        'DType', 'GradientTape', 'Module', 'Tensor', 'TensorArray', 'TensorShape', 'TensorSpec', 'UnconnectedGradients',
        'Variable', 'VariableAggregation', 'VariableSynchronization', 'variable_creator_scope', 'distribute', 'RaggedTensor', 'SparseTensor', 'ragged', 'sparse', 'abs', 'foldl', 'foldr', 'map_fn',
        'numpy_function', 'py_function', 'scan', 'switch_case',
        'vectorized_map',
        'acos', 'acosh', 'add', 'add_n', 'argmax', 'argmin', 'argsort', 'as_dtype', 'asin', 'asinh', 'atan',
        'atan2', 'atanh', 'autodiff', 'bfloat16', 'bitwise', 'bool', 'boolean_mask', 'broadcast_to', 'cast',
        'clip_by_global_norm', 'clip_by_norm', 'clip_by_value', 'complex64', 'concat', 'cond', 'config', 'constant',
        'convert_to_tensor', 'cos', 'cosh',
        'cumsum', 'custom_gradient', 'data', 'debugging', 'device', 'divide', 'dtypes', 'einsum', 'equal', 'errors',
        'exp', 'expand_dims', 'experimental', 'eye', 'fill', 'float16', 'float32', 'float64', 'floor', 'function',
        'gather',
        'gather_nd', 'get_current_name_scope', 'greater', 'greater_equal', 'histogram_fixed_width', 'identity',
        'identity_n', 'image', 'init_scope',
        'initializers', 'int16', 'int32', 'int64', 'int8', 'keras', 'less', 'less_equal', 'linalg', 'linspace',
        'logical_and', 'logical_not', 'logical_or', 'math', 'matmul', 'maximum', 'meshgrid', 'minimum', 'multiply',
        'name_scope', 'negative', 'nest', 'newaxis', 'nn', 'norm', 'not_equal', 'one_hot', 'ones', 'ones_like',
        'optimizers', 'pad', 'pow', 'print', 'profiler', 'random', 'range', 'rank', 'raw_ops', 'reduce_all',
        'reduce_any',
        'reduce_logsumexp', 'reduce_max', 'reduce_mean', 'reduce_min', 'reduce_prod', 'reduce_sum', 'reshape',
        'reverse', 'reverse_sequence', 'roll', 'round', 'saved_model', 'scatter_nd', 'searchsorted', 'shape', 'sigmoid', 'sign',
        'signal', 'sin', 'sinh', 'size', 'slice', 'sort', 'split', 'sqrt', 'square', 'squeeze', 'stack',
        'string', 'strings', 'io',
        'stop_gradient', 'strided_slice', 'subtract', 'summary', 'tan', 'tanh', 'tensor_scatter_nd_update', 'tensordot', 'tile',
        'train', 'transpose', 'truediv', 'uint8', 'unique', 'unique_with_counts', 'unstack',
        'where', 'while_loop', 'zeros', 'zeros_like'
    ],
    'autodiff': ['GradientTape'],
    'bitwise': ['bitwise_and', 'bitwise_or', 'bitwise_xor'],
    'config': [
        'LogicalDevice', 'PhysicalDevice', 'experimental', 'functions_run_eagerly', 'list_logical_devices',
        'list_physical_devices', 'optimizer', 'run_functions_eagerly'
    ],
    'data': ['AUTOTUNE', 'Dataset', 'DatasetSpec', 'INFINITE_CARDINALITY', 'Iterator', 'TFRecordDataset',
             'TextLineDataset', 'UNKNOWN_CARDINALITY', 'experimental'],
    'data.experimental': ['AUTOTUNE', 'CsvDataset', 'INFINITE_CARDINALITY', 'UNKNOWN_CARDINALITY', 'cardinality',
                          'choose_from_datasets', 'make_csv_dataset', 'sample_from_datasets'],
    'debugging': ['check_numerics'],
    'dtypes': [
        'DType', 'as_dtype', 'bfloat16', 'bool', 'complex64', 'float16', 'float32', 'float64', 'int16', 'int32',
        'int64', 'int8', 'string', 'uint8'
    ],
    'errors': [
        'ALREADY_EXISTS', 'AlreadyExistsError', 'DATA_LOSS', 'DataLossError',
        'CANCELLED', 'CancelledError', 'FAILED_PRECONDITION', 'FailedPreconditionError', 'INTERNAL',
        'INVALID_ARGUMENT', 'InternalError', 'InvalidArgumentError', 'NOT_FOUND', 'NotFoundError', 'OK',
        'OperatorNotAllowedInGraphError', 'OUT_OF_RANGE', 'OpError', 'OutOfRangeError', 'RESOURCE_EXHAUSTED',
        'ResourceExhaustedError',
        'UNIMPLEMENTED', 'UNKNOWN', 'UnimplementedError', 'UnknownError',
        'DEADLINE_EXCEEDED', 'DeadlineExceededError', 'UNAVAILABLE', 'UnavailableError',
    ],
    'initializers': [
        'Constant', 'GlorotNormal', 'GlorotUniform', 'HeNormal', 'HeUniform', 'Initializer', 'LecunNormal',
        'LecunUniform', 'Ones', 'RandomNormal', 'RandomUniform', 'TruncatedNormal', 'VarianceScaling', 'Zeros',
        'constant', 'get', 'glorot_normal', 'glorot_uniform', 'he_normal', 'he_uniform', 'lecun_normal',
        'lecun_uniform', 'ones', 'random_normal', 'random_uniform', 'truncated_normal', 'variance_scaling', 'zeros'
    ],
    'image': ['ResizeMethod', 'resize'],
    'keras': ['Input', 'KerasTensor', 'Layer', 'Model', 'Sequential', 'activations', 'backend', 'callbacks',
              'datasets', 'initializers', 'layers', 'losses', 'metrics', 'models', 'ops', 'optimizers',
              'regularizers', 'saving', 'utils'],
    'keras.initializers': [
        'Constant', 'GlorotNormal', 'GlorotUniform', 'HeNormal', 'HeUniform', 'Initializer', 'LecunNormal',
        'LecunUniform', 'Ones', 'RandomNormal', 'RandomUniform', 'TruncatedNormal', 'VarianceScaling', 'Zeros',
        'constant', 'get', 'glorot_normal', 'glorot_uniform', 'he_normal', 'he_uniform', 'lecun_normal',
        'lecun_uniform', 'ones', 'random_normal', 'random_uniform', 'truncated_normal', 'variance_scaling', 'zeros'
    ],
    'keras.optimizers': ['Adam', 'AdamW', 'Optimizer', 'RMSprop', 'SGD', 'deserialize', 'get', 'schedules',
                         'serialize'],
    'linalg': ['adjoint', 'band_part', 'cholesky', 'cholesky_solve', 'det', 'diag', 'diag_part', 'eigh', 'eigvalsh',
               'einsum', 'eye', 'global_norm', 'inv', 'logdet', 'lstsq', 'matmul', 'matrix_transpose', 'matvec', 'norm',
               'qr', 'slogdet', 'solve', 'svd', 'tensordot', 'trace', 'triangular_solve'],
    'math': [
        'abs', 'acos', 'acosh', 'add', 'add_n', 'argmax', 'argmin', 'asin', 'asinh', 'atan', 'atan2', 'atanh',
        'bincount', 'ceil', 'cos', 'cosh', 'cumprod', 'cumsum', 'divide', 'equal', 'erf', 'erfc', 'exp', 'expm1',
        'floor',
        'floordiv', 'floormod', 'greater', 'greater_equal', 'is_finite', 'is_inf', 'is_nan', 'less', 'less_equal',
        'log', 'log1p', 'log_softmax', 'logical_and', 'logical_not', 'logical_or', 'logical_xor', 'maximum',
        'minimum', 'mod', 'multiply', 'negative', 'not_equal', 'pow', 'reciprocal', 'reduce_all', 'reduce_any',
        'reduce_euclidean_norm', 'reduce_logsumexp', 'reduce_max', 'reduce_mean', 'reduce_min', 'reduce_prod',
        'reduce_std', 'reduce_sum',
        'reduce_variance', 'round', 'rsqrt', 'segment_max', 'segment_mean', 'segment_min', 'segment_prod',
        'segment_sum', 'sigmoid', 'sign', 'sin', 'sinh', 'softmax', 'softplus', 'sqrt',
        'square', 'squared_difference', 'subtract', 'tan', 'tanh', 'top_k', 'truediv', 'unsorted_segment_max',
        'unsorted_segment_mean', 'unsorted_segment_min', 'unsorted_segment_prod', 'unsorted_segment_sqrt_n',
        'unsorted_segment_sum', 'xlogy'
    ],
    'nest': ['flatten', 'is_nested', 'map_structure', 'pack_sequence_as'],
    'nn': [
        'compute_average_loss', 'scale_regularization_loss',
        'avg_pool', 'avg_pool1d', 'avg_pool2d', 'avg_pool3d', 'batch_normalization', 'bias_add', 'conv1d', 'conv2d',
        'conv2d_transpose', 'conv3d',
        'depthwise_conv2d', 'dropout', 'elu', 'embedding_lookup', 'gelu', 'leaky_relu', 'log_softmax', 'max_pool',
        'max_pool1d', 'max_pool2d', 'max_pool3d', 'moments', 'relu', 'relu6', 'selu', 'sigmoid',
        'sigmoid_cross_entropy_with_logits', 'silu',
        'softmax', 'softmax_cross_entropy_with_logits', 'softplus', 'sparse_softmax_cross_entropy_with_logits',
        'swish', 'tanh', 'top_k'
    ],
    'optimizers': ['Adam', 'AdamW', 'Optimizer', 'SGD', 'get', 'schedules'],
    'optimizers.schedules': ['CosineDecay', 'ExponentialDecay', 'LearningRateSchedule', 'PiecewiseConstantDecay'],
    'random': [
        'Generator', 'categorical', 'get_global_generator', 'normal', 'set_global_generator', 'set_seed', 'shuffle',
        'stateless_categorical', 'stateless_normal', 'stateless_truncated_normal', 'stateless_uniform',
        'truncated_normal', 'uniform'
    ],
    'summary': ['SummaryWriter', 'create_file_writer', 'create_noop_writer', 'experimental', 'flush', 'histogram',
                'record_if', 'scalar', 'should_record_summaries', 'text', 'write'],
    'summary.experimental': ['get_step', 'set_step'],
    'train': ['Checkpoint', 'CheckpointManager', 'latest_checkpoint', 'list_variables', 'load_checkpoint'],
    'saved_model': ['LoadOptions', 'SaveOptions', 'contains_saved_model', 'load', 'save'],
    'sparse': ['SparseTensor', 'add', 'from_dense', 'reduce_sum', 'reorder', 'sparse_dense_matmul', 'to_dense',
               'transpose'],
    'ragged': ['constant', 'map_flat_values'],
    'signal': ['fft', 'fft2d', 'ifft', 'ifft2d', 'irfft', 'irfft2d', 'rfft', 'rfft2d'],
    'strings': ['as_string', 'bytes_split', 'format', 'join', 'length', 'lower', 'reduce_join', 'regex_full_match',
                'regex_replace', 'split', 'strip', 'substr', 'to_hash_bucket_fast', 'to_number', 'unicode_decode',
                'unicode_encode', 'upper'],
    'distribute': ['InputContext', 'MirroredStrategy', 'MultiWorkerMirroredStrategy', 'OneDeviceStrategy',
                   'ReduceOp', 'ReplicaContext',
                   'Strategy', 'StrategyExtended', 'get_cross_replica_context', 'get_replica_context',
                   'get_strategy', 'has_strategy', 'in_cross_replica_context'],
    'io': ['TFRecordOptions', 'TFRecordWriter', 'decode_csv', 'decode_raw', 'gfile', 'parse_tensor', 'read_file',
           'serialize_tensor', 'write_file'],
    'io.gfile': ['GFile', 'copy', 'exists', 'glob', 'isdir', 'join', 'listdir', 'makedirs', 'mkdir', 'remove',
                 'rename', 'rmtree', 'stat', 'walk'],
}

# Public ember names that TensorFlow does not have, per namespace, and why.
EXTENSIONS = {
    "": {
        # ember.function's classes (TensorFlow keeps them under tf.types.experimental).
        "ConcreteFunction", "Function",
        # TensorFlow 1.x top-level spellings of tf.math functions, kept as conveniences.
        "ceil", "erf", "erfc", "expm1", "floordiv", "floormod", "is_finite", "is_inf", "is_nan", "log",
        "log1p", "logical_xor", "reciprocal", "rsqrt", "softplus", "squared_difference",
        # The runtime: run an op by name, wait for pending work, list devices, load a graph's text.
        "execute", "sync", "list_devices", "function_from_text",
        # The array API's DLPack import (TensorFlow: tf.experimental.dlpack.from_dlpack, also here).
        "from_dlpack",
        # How tensors print, with NumPy's names (TensorFlow uses NumPy's own settings).
        "get_printoptions", "printoptions", "set_printoptions",
    },
    # Ops with no tf.nn counterpart of that name (TensorFlow has them elsewhere or in Keras).
    "nn": {"conv2d_backprop_filter", "fused_batch_norm", "layer_normalization", "scaled_dot_product_attention"},
    # dropout's seeded parts, and the stateless ops under their op names.
    "random": {"dropout", "stateless_dropout", "stateless_random_normal", "stateless_random_uniform",
               "stateless_random_uniform_int"},
    # Runtime settings and memory statistics (TensorFlow has some under tf.config.experimental).
    "config": {"clear_kernel_cache", "empty_cache", "get_device_policy", "get_log_device_placement",
               "get_memory_info", "get_trace_cache_capacity", "is_async", "kernel_cache_stats", "memory_stats",
               "reset_peak_memory_stats", "runtime_stats", "set_async", "set_device_policy", "set_kernel_cache_capacity",
               "set_log_device_placement", "set_memory_limit", "set_trace_cache_capacity",
               # What the build links (TensorFlow: tf.sysconfig.get_build_info()).
               "build_info"},
    "dtypes": {"ALL_DTYPES"},
    # The collectives backend interface and its in-process implementation (TensorFlow's
    # CrossDeviceOps plays that part); the distributed values strategy.run returns and
    # mirrored variables (TensorFlow has them, but not under tf.distribute).
    "distribute": {"Collectives", "LocalCollectives", "MirroredVariable", "PerReplica", "SyncOnReadVariable",
                   # tf.distribute.experimental.ValueContext, kept at the top like CommunicationOptions.
                   "ValueContext",
                   # The MPI backend, its view of the cluster (TensorFlow reads TF_CONFIG instead),
                   # and tf.distribute.experimental.CommunicationOptions, kept at the top.
                   "MpiCollectives", "MpiClusterResolver", "CommunicationOptions"},
    "autodiff": {"UnconnectedGradients", "custom_gradient"},  # tf.UnconnectedGradients, tf.custom_gradient
}

# ember.raw_ops holds ember's ops under their op_defs names, not TensorFlow's raw ops; it is
# not compared.


def _resolve(path):
    obj = ember
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def _parameters(obj):
    return [p.name for p in inspect.signature(obj).parameters.values()
            if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


def _follows(ember_params, tf_params):
    """Returns None if ember's parameters follow TensorFlow's, else the reason they do not.

    ember may leave out a tail of TensorFlow's parameters, and may keep `name` last when
    TensorFlow's `name` is its last parameter (tf.matmul's adjoint_a ... grad_b before name);
    parameters TensorFlow does not have must come after all of TensorFlow's.
    """
    common = [p for p in ember_params if p in tf_params]
    if common:
        last = ember_params.index(common[-1])
        extra = [p for p in ember_params[:last] if p not in tf_params]
        if extra:
            return f"ember-only parameters {extra} come before TensorFlow's"
    if common == tf_params[:len(common)]:
        return None
    if tf_params[-1:] == ["name"] and common[-1:] == ["name"] and common[:-1] == tf_params[:len(common) - 1]:
        return None
    return "the order differs"


def test_signature_data_covers_the_most_used_functions():
    assert len(TF_SIGNATURES) >= 150
    for name in ("gather", "linspace", "matmul", "reduce_sum", "concat", "reshape", "one_hot", "where",
                 "boolean_mask", "math.top_k", "nn.conv2d", "nn.max_pool", "random.uniform", "linalg.matmul",
                 "Variable", "function"):
        assert name in TF_SIGNATURES, name


@pytest.mark.parametrize("name", sorted(TF_SIGNATURES))
def test_parameters_follow_tensorflow(name):
    ours = _parameters(_resolve(name))
    reason = _follows(ours, TF_SIGNATURES[name])
    assert reason is None, f"ember.{name}{tuple(ours)} vs tf.{name}{tuple(TF_SIGNATURES[name])}: {reason}"


def test_follows_rule():
    assert _follows(["a", "b", "name"], ["a", "b", "c", "name"]) is None
    assert _follows(["a", "b"], ["a", "b", "c"]) is None
    assert _follows(["a", "b", "extra"], ["a", "b", "c"]) is None
    assert _follows(["params", "indices", "axis"], ["params", "indices", "validate_indices", "axis"]) is not None
    assert _follows(["start", "stop", "num", "axis", "name"], ["start", "stop", "num", "name", "axis"]) is not None
    assert _follows(["a", "extra", "b"], ["a", "b"]) is not None


@pytest.mark.parametrize("namespace", sorted(TF_NAMES))
def test_public_names_are_tensorflow_names_or_listed_extensions(namespace):
    module = _resolve(namespace) if namespace else ember
    public = {n for n in dir(module) if not n.startswith("_")}
    unexpected = public - set(TF_NAMES[namespace]) - EXTENSIONS.get(namespace, set())
    assert not unexpected, (f"ember{'.' + namespace if namespace else ''} has public names TensorFlow does not: "
                            f"{sorted(unexpected)}; make them private or list them in EXTENSIONS")
    stale = set(TF_NAMES[namespace]) - public
    assert not stale, f"TF_NAMES[{namespace!r}] lists names ember no longer has: {sorted(stale)}"


def test_extensions_exist():
    for namespace, names in EXTENSIONS.items():
        module = _resolve(namespace) if namespace else ember
        assert all(hasattr(module, n) for n in names), namespace


@pytest.mark.parametrize("path", ["creation", "movement", "indexing", "runtime", "tensor", "variables",
                                  "control_flow", "printing", "random.np", "random.os", "random.Tensor",
                                  "nn.composite", "nn.check_str", "linalg.composite", "linalg.math",
                                  "dtypes.np", "config.check_int", "initializers.np", "data.dataset",
                                  "optimizers.optimizer", "autodiff.tape", "lin_space"])
def test_implementation_details_are_not_public(path):
    parent, _, last = path.rpartition(".")
    assert not hasattr(_resolve(parent) if parent else ember, last)


def test_tensorflow_namespaces_present():
    for name in ("math", "nn", "linalg", "random", "data", "config", "keras", "dtypes", "errors", "nest",
                 "bitwise", "debugging", "autodiff", "initializers", "optimizers", "raw_ops", "train",
                 "saved_model", "summary", "distribute"):
        assert inspect.ismodule(getattr(ember, name)), name
