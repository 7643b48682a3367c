"""MirroredStrategy (the replicas of one process, one per device) and OneDeviceStrategy."""

from ember import config
from ember.distribute._strategy import Strategy


class MirroredStrategy(Strategy):
    """Synchronous data-parallel training on the devices of this process
    (``tf.distribute.MirroredStrategy``): variables are mirrored on every device, each replica
    runs on its slice of the batch, and the optimizer sums the gradients of all replicas.

    ``devices`` defaults to every GPU, else the CPU; any list works, e.g. ``["cpu:0", "cpu:1"]``
    (with EMBER_NUM_CPU_DEVICES=2) or ``["sim:0", "sim:1"]``. ``cross_device_ops`` is the
    collectives backend (an ``ember.distribute.Collectives`` over the same devices); the
    default, LocalCollectives, copies values between the devices.
    """

    def __init__(self, devices=None, cross_device_ops=None):
        if devices is None:
            devices = [d.name for d in config.list_logical_devices("GPU")] or ["cpu:0"]
        elif isinstance(devices, str):
            raise TypeError("MirroredStrategy: devices must be a list of device names, not a string")
        super().__init__(list(devices), cross_device_ops)


class OneDeviceStrategy(Strategy):
    """Everything on one device (``tf.distribute.OneDeviceStrategy``): variables are made
    there, ``run`` runs there, and datasets are copied there."""

    def __init__(self, device):
        super().__init__([device])
