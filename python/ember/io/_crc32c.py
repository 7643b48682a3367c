"""CRC-32C (Castagnoli), the checksum of TFRecord files, and TFRecord's masking of it.

Python's zlib and binascii compute only the IEEE CRC-32, so this is a
table-driven CRC-32C (reflected polynomial 0x82F63B78), eight bytes a step
("slicing by 8": eight tables, each the CRC of a byte followed by k zero bytes).
"""

import struct

_POLY = 0x82F63B78


def _tables():
    first = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ (_POLY if crc & 1 else 0)
        first.append(crc)
    tables = [first]
    for _ in range(7):
        prev = tables[-1]
        tables.append([(prev[i] >> 8) ^ first[prev[i] & 0xFF] for i in range(256)])
    return tables


_T = _tables()
_T0, _T1, _T2, _T3, _T4, _T5, _T6, _T7 = _T


def crc32c(data, crc=0):
    """The CRC-32C of `data` (bytes-like), continuing from `crc` (the CRC of earlier bytes)."""
    data = memoryview(data).cast("B")
    crc ^= 0xFFFFFFFF
    n = len(data)
    body = n - n % 8
    for lo, hi in struct.iter_unpack("<II", data[:body]):
        lo ^= crc
        crc = (_T7[lo & 0xFF] ^ _T6[(lo >> 8) & 0xFF] ^ _T5[(lo >> 16) & 0xFF] ^ _T4[lo >> 24]
               ^ _T3[hi & 0xFF] ^ _T2[(hi >> 8) & 0xFF] ^ _T1[(hi >> 16) & 0xFF] ^ _T0[hi >> 24])
    for byte in data[body:]:
        crc = (crc >> 8) ^ _T0[(crc ^ byte) & 0xFF]
    return crc ^ 0xFFFFFFFF


_MASK_DELTA = 0xA282EAD8


def masked_crc32c(data):
    """TFRecord's stored checksum: the CRC rotated right by 15 bits plus a constant, so that a
    CRC of data that itself holds CRCs is not trivially related to them."""
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & 0xFFFFFFFF
