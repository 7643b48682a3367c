"""The extension exports its module entry point and nothing of Ember's C++
(CMakeLists.txt: hidden visibility). The static libraries linked into it
exported 10,338 symbols, which cost import memory and made every call
between translation units go through the PLT. Read from the ELF file's
dynamic symbol table, so no binutils are needed."""

import struct
import sys

import pytest

from ember import _C

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads an ELF shared object")

SHT_DYNSYM = 11
SHN_UNDEF = 0
STB_GLOBAL, STB_WEAK = 1, 2
STV_DEFAULT = 0


def exported_names(path):
    """The defined, default-visibility global and weak symbols of a 64-bit little-endian ELF file."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:4] == b"\x7fELF" and data[4] == 2 and data[5] == 1, "expected a 64-bit little-endian ELF file"
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names = []
    for _, kind, _, _, offset, size, link, _, _, entsize in sections:
        if kind != SHT_DYNSYM:
            continue
        strings_offset = sections[link][4]
        for at in range(offset, offset + size, entsize):
            name_at, info, other, shndx = struct.unpack_from("<IBBH", data, at)
            binding, visibility = info >> 4, other & 3
            if shndx != SHN_UNDEF and binding in (STB_GLOBAL, STB_WEAK) and visibility == STV_DEFAULT:
                end = data.index(b"\0", strings_offset + name_at)
                names.append(data[strings_offset + name_at:end].decode())
    return names


def test_the_extension_exports_only_its_entry_point():
    names = exported_names(_C.__file__)
    assert "PyInit__C" in names
    ours = [name for name in names if "ember" in name]
    assert ours == [], f"{len(ours)} C++ symbols exported, e.g. {ours[:5]}"
    # What else stays exported (type information of std:: and function types, which the
    # C++ runtime may compare across libraries) is a few dozen at most.
    assert len(names) < 50, f"{len(names)} symbols exported, e.g. {names[:10]}"


def test_the_reader_finds_a_libraries_exports():
    # The check above must be able to fail: libstdc++ exports thousands of C++ symbols.
    import glob
    candidates = glob.glob("/usr/lib/x86_64-linux-gnu/libstdc++.so.6*") + glob.glob("/usr/lib64/libstdc++.so.6*")
    path = next((p for p in candidates if not p.endswith(".py")), None)
    if path is None:
        pytest.skip("no libstdc++ found to read")
    names = exported_names(path)
    assert len(names) > 1000 and any(name.startswith("_ZTI") for name in names)
