"""Runtime settings: execution mode, placement logging, the kernel cache.

``EMBER_ASYNC=0`` in the environment starts Ember in synchronous mode and
``EMBER_LOG_PLACEMENT=1`` logs every placement decision to stderr.
"""

import os as _os

from ember import _C
from ember._checks import check_int as _check_int, check_str as _check_str


def set_async(enabled):
    """Async mode (the default): ops return at once and run on the device's
    executor; kernel errors surface when a value is read or at
    ``ember.sync()``. Sync mode runs each kernel before the call returns and
    raises kernel errors at the call."""
    _C.set_async(bool(enabled))


def is_async():
    return _C.is_async()


def set_log_device_placement(enabled):
    """Print each op's device and the rule that chose it to stderr."""
    _C.set_log_device_placement(bool(enabled))


def get_log_device_placement():
    return _C.get_log_device_placement()


def set_device_policy(policy):
    """What an op does with an input on another device than its own
    (TensorFlow's ``tf.config.experimental.set_device_policy``):
    ``'silent'`` (the default) copies it, and the placement log shows the
    copy; ``'warn'`` copies it and prints a line to stderr; ``'explicit'``
    raises ``InvalidArgumentError`` instead. ``None`` restores the default."""
    _C.set_device_policy("silent" if policy is None else _check_str(policy, "set_device_policy", "policy"))


def get_device_policy():
    return _C.get_device_policy()


class PhysicalDevice(tuple):
    """``(name, device_type)`` as TensorFlow's ``tf.config.PhysicalDevice``."""

    __slots__ = ()

    def __new__(cls, name, device_type):
        return super().__new__(cls, (name, device_type))

    name = property(lambda self: self[0])
    device_type = property(lambda self: self[1])

    def __repr__(self):
        return f"{type(self).__name__}(name={self.name!r}, device_type={self.device_type!r})"


class LogicalDevice(PhysicalDevice):
    """``(name, device_type)`` as TensorFlow's ``tf.config.LogicalDevice``."""

    __slots__ = ()


def _devices(device_type, prefix, cls):
    want = None if device_type is None else _check_str(device_type, "list_devices", "device_type").upper()
    out = []
    for name, kind in _C._device_info():
        kind = kind.upper()
        if want is None or kind == want:
            index = name.split(":")[1]
            out.append(cls(f"{prefix}:{kind}:{index}", kind))
    return out


def list_physical_devices(device_type=None):
    """The devices Ember found, e.g. ``[PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]``;
    ``device_type`` (``'CPU'``, ``'GPU'``, ``'SIM'``) filters them. Each
    logical CPU device (``EMBER_NUM_CPU_DEVICES``) and each simulated
    accelerator (``EMBER_SIMULATED_DEVICES``) counts as one."""
    return _devices(device_type, "/physical_device", PhysicalDevice)


def list_logical_devices(device_type=None):
    """The devices ops can be placed on, named as ``ember.device`` accepts them
    (``'/device:CPU:0'``)."""
    return _devices(device_type, "/device", LogicalDevice)


def kernel_cache_stats():
    """Returns ``{'hits', 'misses', 'evictions', 'size', 'capacity'}``."""
    return _C.kernel_cache_stats()


def clear_kernel_cache():
    _C.kernel_cache_clear()


def set_kernel_cache_capacity(capacity):
    """Bounds the kernel cache to ``capacity`` kernels (least recently used
    ones are evicted; 4096 by default)."""
    _C.set_kernel_cache_capacity(_check_int(capacity, "set_kernel_cache_capacity", "capacity", minimum=0,
                                           maximum=2**62))


# Settings of ember.function, which reads them at each call (they live here,
# below it: docs/architecture.md, "Python package layers").
_functions_eager = False
_trace_cache_capacity = 128


def run_functions_eagerly(enabled):
    """Run every ``@ember.function`` as plain Python, op by op, for debugging
    (``tf.config.run_functions_eagerly``)."""
    global _functions_eager
    _functions_eager = bool(enabled)


def functions_run_eagerly():
    return _functions_eager


def memory_stats(device="cpu:0", pinned=False):
    """The device allocator's counters: ``bytes_in_use`` (tensor buffers
    now), ``peak_bytes_in_use`` (since the last ``reset_peak_memory_stats``),
    ``bytes_reserved`` (held from the system: in use plus the cache of a
    caching allocator), ``num_allocs`` (allocations so far) and
    ``limit_bytes`` (0: no limit). With ``pinned=True``, the same for the
    pinned host memory the device stages its copies through (Note [Pinned
    staging]); ``ValueError`` for a device that has none, as the CPU."""
    if not isinstance(pinned, bool):
        raise TypeError(f"memory_stats: pinned must be a bool, got {type(pinned).__name__}")
    return _C.memory_stats(_check_str(device, "memory_stats", "device"), pinned)


def runtime_stats(device="cpu:0"):
    """What ``device``'s streams counted since start-up (Note [Runtime
    statistics], docs/devices.md): ``kernels_enqueued``,
    ``copies_enqueued``, ``copies_staged`` (copies from pageable host memory
    through pinned staging), ``events_recorded`` (events another stream or the
    host had to wait for), ``device_waits`` (a stream ordered after another
    on the device), ``host_synchronizations`` (points of a stream's order
    a host thread blocked on), ``host_callbacks`` (a stream called the host back) and
    ``busy_seconds`` (time spent running work), summed over the device's
    streams, plus ``streams``: the same per stream. A device without
    streams (the CPU runs kernels at once) reports zeros. Take two readings
    and subtract to count what some code did."""
    return _C.runtime_stats(_check_str(device, "runtime_stats", "device"))


def get_memory_info(device="cpu:0"):
    """TensorFlow's ``tf.config.experimental.get_memory_info``:
    ``{'current', 'peak'}`` bytes in use on ``device``."""
    stats = memory_stats(device)
    return {"current": stats["bytes_in_use"], "peak": stats["peak_bytes_in_use"]}


def empty_cache(device="cpu:0"):
    """Returns the device allocator's cached, unused memory to the system
    (memory of live tensors stays)."""
    _C.empty_cache(_check_str(device, "empty_cache", "device"))


def set_memory_limit(device, limit_bytes):
    """Caps what ``device``'s allocator holds at ``limit_bytes`` (``None`` or
    0: no limit). An allocation past it first empties the cache, then fails
    with ``ResourceExhaustedError`` naming the op."""
    limit = 0 if limit_bytes is None else _check_int(limit_bytes, "set_memory_limit", "limit_bytes", minimum=0,
                                                     maximum=2**62)
    _C.set_memory_limit(_check_str(device, "set_memory_limit", "device"), limit)


def reset_peak_memory_stats(device="cpu:0"):
    _C.reset_peak_memory_stats(_check_str(device, "reset_peak_memory_stats", "device"))


def set_trace_cache_capacity(capacity):
    """Bounds how many traces each ``@ember.function`` keeps (128 by
    default); past that the oldest is dropped and retraced if called again.
    ``Function.trace_cache_stats()`` reports a function's cache (Note [Trace cache bound])."""
    global _trace_cache_capacity
    _trace_cache_capacity = _check_int(capacity, "set_trace_cache_capacity", "capacity", minimum=1)


def get_trace_cache_capacity():
    return _trace_cache_capacity


class _Optimizer:
    """``ember.config.optimizer``: which graph passes ``@ember.function``
    runs, under TensorFlow's grappler names (``tf.config.optimizer``).

    - ``arithmetic_optimization``: removes ``x * 1``, ``x + 0``,
      ``identity`` and cancelling transposes.
    - ``constant_folding``: evaluates small all-constant subgraphs once.
    - ``common_subexpression_elimination``: merges identical nodes.
    - ``remapping``: fuses chains of element-wise ops into one kernel that
      makes one pass over memory (docs/functions.md).

    All are on by default. Options apply to functions traced afterwards:
    a function already traced keeps its graph. Other grappler names are
    accepted and ignored when false; a true one that Ember does not
    implement raises, so a setting never silently does nothing.
    """

    _GRAPPLER_ONLY = frozenset({
        "layout_optimizer", "shape_optimization", "dependency_optimization", "loop_optimization",
        "function_optimization", "debug_stripper", "disable_model_pruning", "scoped_allocator_optimization",
        "pin_to_host_optimization", "implementation_selector", "auto_mixed_precision",
        "auto_mixed_precision_onednn_bfloat16", "auto_parallel", "min_graph_nodes"})

    def set_experimental_options(self, options):
        """Turns passes on or off: a dict such as ``{"remapping": False}``."""
        if not isinstance(options, dict):
            raise TypeError(f"set_experimental_options: expected a dict, got {type(options).__name__}")
        known = _C._optimizer_options()
        for name, value in options.items():
            if name == "disable_meta_optimizer":
                for key in known:
                    _C._set_optimizer_option(key, not value)
            elif name in known:
                _C._set_optimizer_option(name, bool(value))
            elif name in self._GRAPPLER_ONLY and not value:
                continue
            else:
                raise ValueError(f"set_experimental_options: Ember has no optimizer option {name!r}; it has "
                                 f"{sorted(known)} and disable_meta_optimizer")

    def get_experimental_options(self):
        """The current options as a dict (name -> bool)."""
        return dict(_C._optimizer_options())


optimizer = _Optimizer()

# What TensorFloat-32 does when no GPU library is compiled in: nothing,
# but the setting reads back as set.
_tf32_without_cuda = [True]


class _Experimental:
    """``ember.config.experimental``: TensorFlow's ``tf.config.experimental``
    settings that Ember has."""

    @staticmethod
    def enable_tensor_float_32_execution(enabled):
        """Lets float32 matmuls and convolutions on a GPU round their inputs
        to TensorFloat-32 (10 mantissa bits, float32 accumulation; on by
        default, as in TensorFlow). Off, they compute in full float32, about
        1e-6 relative rather than 1e-3 (Note [Matmul precision on GPUs]).
        Applies to ops run afterwards; a function traced earlier reads it
        when its kernels run."""
        if not isinstance(enabled, bool):
            raise TypeError("enable_tensor_float_32_execution: enabled must be a bool, got "
                            f"{type(enabled).__name__}")
        if hasattr(_C, "_set_tensor_float_32"):
            _C._set_tensor_float_32(enabled)
        _tf32_without_cuda[0] = enabled

    @staticmethod
    def tensor_float_32_execution_enabled():
        return _C._tensor_float_32() if hasattr(_C, "_tensor_float_32") else _tf32_without_cuda[0]

    @staticmethod
    def enable_cuda_graphs(enabled):
        """Replays a function whose nodes all run on one GPU as a CUDA graph
        from its second call on (the first warms its kernels; the second is
        captured and replayed): one launch per call instead of one per node
        (Note [Graph replay], docs/devices.md "CUDA graphs for functions").
        On by default; ``EMBER_CUDA_GRAPHS=0`` turns it off at import. The
        simulated accelerator models CUDA graphs and follows the same
        setting."""
        if not isinstance(enabled, bool):
            raise TypeError(f"enable_cuda_graphs: enabled must be a bool, got {type(enabled).__name__}")
        _C._set_graph_replay(enabled)

    @staticmethod
    def cuda_graphs_enabled():
        return _C._graph_replay()

    get_memory_info = staticmethod(get_memory_info)
    set_device_policy = staticmethod(set_device_policy)
    get_device_policy = staticmethod(get_device_policy)
    reset_memory_stats = staticmethod(reset_peak_memory_stats)


experimental = _Experimental()


def build_info():
    """How this build of Ember was made, as a dict (in the spirit of
    ``tf.sysconfig.get_build_info()``):

    - ``blas``: the library behind float32/float64/complex64 GEMM, which also
      computes convolutions (im2col + GEMM): ``'OpenBLAS'`` when built with
      the scipy-openblas32 wheel, else ``'Eigen'``.
    - ``packed_sgemm``: whether Ember's own float32 GEMM (AVX-512 builds)
      takes the mid-sized float32 products before that library (Note
      [Packed float32 GEMM]).
    - ``blas_version``, ``blas_config``: its version and build configuration.
    - ``blas_threads_per_call``: threads the library itself uses per call
      (1 with OpenBLAS: Ember's intra-op pool splits products into tiles).
    - ``eigen_version``: the Eigen headers, which compute everything else and
      products too small to pay for a BLAS call.
    - ``intra_op_threads``: threads of the CPU device's intra-op pool
      (``EMBER_NUM_THREADS``; one per hardware thread by default).
    - ``is_cuda_build``: whether the CUDA library was compiled in. If so,
      also ``cuda_version`` (the CUDA runtime, e.g. 13000),
      ``cuda_driver_version`` (0 without a driver), ``cublas_version`` and
      ``cudnn_version`` and ``nccl_version`` (the headers built against),
      ``nccl_library`` (the NCCL loaded for GPU collectives, e.g. ``'NCCL
      2.28.9'``, why none loads, or that the first collective on a GPU
      loads it: build_info never loads it, since a libnccl.so.2 loaded
      before PyTorch's breaks ``import torch``), ``cuda_architectures``
      (the GPU code in the library), ``gpus_found`` and ``gpu_status`` (why no
      GPU is used: no driver, no GPU, or the device runtime not yet written;
      Note [GPU discovery]).
    - ``mpi_backend``: ``'mpi4py'`` when multi-worker collectives can run
      (ember.distribute.MultiWorkerMirroredStrategy), else None; with it
      ``mpi4py_version``, ``mpi_library`` (the first line of
      ``MPI.Get_library_version()``, e.g. ``'MPICH Version: 5.0.2'``) and
      ``mpi_standard``; ``mpi_status`` says why there is none. MPI is loaded
      here, on the first call, not at ``import ember``.
    """
    from ember.distribute import _mpi  # loads mpi4py only now: importing it initializes MPI
    info = dict(_C._build_info())
    gemm = "packed float32 / " + info["blas"] if info["packed_sgemm"] else info["blas"]
    info["conv_backend"] = f"direct, Winograd, or im2col + {gemm} GEMM"
    info.update(_mpi.backend_info())
    return info


# Note [Graph replay]: EMBER_CUDA_GRAPHS=0 turns CUDA graph replay off at
# import, =1 on (the default).
if _os.environ.get("EMBER_CUDA_GRAPHS") in ("0", "1"):
    experimental.enable_cuda_graphs(_os.environ["EMBER_CUDA_GRAPHS"] == "1")
