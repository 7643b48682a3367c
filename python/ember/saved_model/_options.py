# tf.saved_model.SaveOptions and LoadOptions: accepted so TensorFlow programs run; Ember's format uses none of them.


class SaveOptions:
    """Options of ``saved_model.save`` (``tf.saved_model.SaveOptions``), in TensorFlow's order.

    They steer parts of TensorFlow's SavedModel that Ember's format does not
    have (op namespaces, debug info files, function aliases, I/O devices of
    distributed jobs, variable placement policies, the proto image format,
    checkpoint sharding, MetaGraph tags), so they are kept and ignored.
    """

    def __init__(self, namespace_whitelist=None, save_debug_info=False, function_aliases=None,
                 experimental_debug_stripper=False, experimental_io_device=None, experimental_variable_policy=None,
                 experimental_custom_gradients=True, experimental_image_format=False, experimental_skip_saver=False,
                 experimental_sharding_callback=None, extra_tags=None):
        self.namespace_whitelist = namespace_whitelist
        self.save_debug_info = save_debug_info
        self.function_aliases = function_aliases
        self.experimental_debug_stripper = experimental_debug_stripper
        self.experimental_io_device = experimental_io_device
        self.experimental_variable_policy = experimental_variable_policy
        self.experimental_custom_gradients = experimental_custom_gradients
        self.experimental_image_format = experimental_image_format
        self.experimental_skip_saver = experimental_skip_saver
        self.experimental_sharding_callback = experimental_sharding_callback
        self.extra_tags = extra_tags


class LoadOptions:
    """Options of ``saved_model.load`` (``tf.saved_model.LoadOptions``), in TensorFlow's order.

    ``allow_partial_checkpoint``, ``experimental_io_device``,
    ``experimental_variable_policy`` and ``experimental_load_function_aliases``
    concern TensorFlow's format and distributed jobs and are ignored;
    ``experimental_skip_checkpoint=True`` is refused by ``load`` (not supported).
    """

    def __init__(self, allow_partial_checkpoint=False, experimental_io_device=None,
                 experimental_skip_checkpoint=False, experimental_variable_policy=None,
                 experimental_load_function_aliases=False):
        self.allow_partial_checkpoint = allow_partial_checkpoint
        self.experimental_io_device = experimental_io_device
        self.experimental_skip_checkpoint = experimental_skip_checkpoint
        self.experimental_variable_policy = experimental_variable_policy
        self.experimental_load_function_aliases = experimental_load_function_aliases
