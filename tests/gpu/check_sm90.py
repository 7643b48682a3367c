"""Checks that the installed ember's extension holds Hopper (sm_90) and
Ampere (sm_80) machine code and sm_90 PTX for newer GPUs, as the CUDA build
promises (docs/devices.md, "CUDA"). Lists the embedded code with cuobjdump:
the toolkit's, else the one from the nvidia-cuda-cuobjdump wheel.

Exits 0 when the code is there, 1 when it is not, and 0 with a note when
this is not a CUDA build (nothing to check)."""

import glob
import os
import shutil
import subprocess
import sys


def find_cuobjdump():
    found = shutil.which("cuobjdump")
    if found:
        return found
    for base in ("/usr/local/cuda/bin",):
        if os.path.exists(os.path.join(base, "cuobjdump")):
            return os.path.join(base, "cuobjdump")
    try:
        import nvidia  # the wheel's namespace package
    except ImportError:
        return None
    for root in nvidia.__path__:
        for path in glob.glob(os.path.join(root, "*", "bin", "cuobjdump")):
            return path
    return None


def main():
    import ember

    if not ember.config.build_info().get("is_cuda_build"):
        print("not a CUDA build: nothing to check")
        return 0
    library = glob.glob(os.path.join(os.path.dirname(ember.__file__), "_C*.so"))[0]
    tool = find_cuobjdump()
    if tool is None:
        print("cuobjdump not found (install the nvidia-cuda-cuobjdump wheel)")
        return 1
    elf = subprocess.run([tool, "--list-elf", library], capture_output=True, text=True, check=False)
    ptx = subprocess.run([tool, "--list-ptx", library], capture_output=True, text=True, check=False)
    print(elf.stdout + elf.stderr + ptx.stdout + ptx.stderr)
    missing = [what for what, listing in (("sm_90 machine code", elf.stdout), ("sm_80 machine code", elf.stdout),
                                          ("sm_90 PTX", ptx.stdout)) if what.split()[0] not in listing]
    if missing:
        print("missing from " + library + ": " + ", ".join(missing))
        return 1
    print("ok: " + library + " holds sm_80 and sm_90 machine code and sm_90 PTX")
    return 0


if __name__ == "__main__":
    sys.exit(main())
