"""A build with the CUDA library compiled in, on a machine without a GPU
(Note [GPU discovery]): the package imports, build_info says what was
compiled and why no GPU is used, `gpu:0` fails with that reason, and there
are no GPU devices. Skipped for builds without CUDA."""

import pytest

import ember

INFO = ember.config.build_info()
pytestmark = pytest.mark.skipif(not INFO["is_cuda_build"], reason="built without the CUDA library")


def test_build_info_names_the_toolkit_libraries_and_architectures():
    assert INFO["cuda_version"] >= 12000
    major, minor, _ = INFO["cublas_version"].split(".")
    assert int(major) >= 12
    assert INFO["cudnn_version"] == "" or int(INFO["cudnn_version"].split(".")[0]) >= 9
    archs = INFO["cuda_architectures"].split(",")
    assert "90-real" in archs and "80-real" in archs and any(a.endswith("-virtual") for a in archs)
    assert isinstance(INFO["gpu_status"], str) and INFO["gpu_status"]


def test_no_gpu_is_placed_on_until_the_device_runtime_exists():
    assert ember.config.list_physical_devices("GPU") == []
    assert ember.config.list_logical_devices("GPU") == []


@pytest.mark.parametrize("spec", ["gpu:0", "/GPU:0", "/device:GPU:0"])
def test_asking_for_a_gpu_says_why_there_is_none(spec):
    with pytest.raises(Exception) as excinfo:
        with ember.device(spec):
            ember.constant([1.0]) + 1.0
    message = str(excinfo.value)
    assert "CUDA is compiled in" in message
    assert INFO["gpu_status"] in message
    # The runtime is still usable.
    assert float(ember.reduce_sum(ember.constant([1.0, 2.0]))) == 3.0
