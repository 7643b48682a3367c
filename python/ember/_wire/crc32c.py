# CRC-32C (Castagnoli), the checksum of TFRecord files, LevelDB tables and TensorFlow's tensor bundles, in NumPy.

import math

import numpy as np

_POLYNOMIAL = 0x82F63B78  # Castagnoli's polynomial, bit-reversed
_MASK_DELTA = 0xA282EAD8
_VECTOR_FROM = 4096  # shorter inputs take the byte-at-a-time loop


def _byte_table():
    table = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        table = np.where(table & 1, (table >> 1) ^ np.uint32(_POLYNOMIAL), table >> 1).astype(np.uint32)
    return table


_TABLE = _byte_table()
_TABLE_LIST = _TABLE.tolist()


def value(data, crc=0):
    """The CRC-32C of the bytes ``data``, continuing from ``crc`` (the value of the bytes before)."""
    data = memoryview(data).cast("B")
    return _feed(data, crc ^ 0xFFFFFFFF) ^ 0xFFFFFFFF


def mask(crc):
    """The stored form of a CRC (LevelDB and TensorFlow store CRCs of data that holds CRCs masked)."""
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + _MASK_DELTA) & 0xFFFFFFFF


def unmask(masked):
    rotated = (masked - _MASK_DELTA) & 0xFFFFFFFF
    return ((rotated >> 17) | (rotated << 15)) & 0xFFFFFFFF


def _feed_bytes(data, register):
    table = _TABLE_LIST
    for byte in data:
        register = table[(register ^ byte) & 0xFF] ^ (register >> 8)
    return register


def _feed(data, register):
    """The CRC register after feeding ``data`` to it.

    Note [Vectorized CRC]: Python takes about a microsecond a byte, too slow
    for model weights. A CRC register is linear over GF(2): the register
    after a message, started from r, is (the register after it started from
    0) xor Z(r), where Z feeds as many zero bytes to r. So the data is cut
    into k lanes of w bytes; NumPy runs all lanes' registers from 0 at once
    (w vector steps), together with 32 extra lanes of zeros started from
    each single bit, which give Z for w bytes as a 32x32 bit matrix. Then
    r = Z(r) xor lane_i for each lane in turn (k scalar steps, Z as four
    256-entry tables). With k and w near sqrt(n) both loops are short.
    """
    n = len(data)
    if n < _VECTOR_FROM:
        return _feed_bytes(data, register)
    width = math.isqrt(n)
    lanes = n // width
    columns = np.zeros((width, lanes + 32), dtype=np.uint8)
    columns[:, :lanes] = np.frombuffer(data, np.uint8, count=lanes * width).reshape(lanes, width).T
    registers = np.zeros(lanes + 32, dtype=np.uint32)
    registers[lanes:] = np.left_shift(np.uint32(1), np.arange(32, dtype=np.uint32))
    for row in columns:
        registers = _TABLE[(registers ^ row) & 0xFF] ^ (registers >> 8)
    shift = _zeros_operator(registers[lanes:])
    for lane in registers[:lanes].tolist():
        register = (shift[0][register & 0xFF] ^ shift[1][(register >> 8) & 0xFF]
                    ^ shift[2][(register >> 16) & 0xFF] ^ shift[3][register >> 24] ^ lane)
    return _feed_bytes(data[lanes * width:], register)


def _zeros_operator(images):
    """Four 256-entry lists: the linear map whose image of bit k is images[k], one list per input byte."""
    values = np.arange(256, dtype=np.uint32)
    tables = []
    for byte in range(4):
        table = np.zeros(256, dtype=np.uint32)
        for bit in range(8):
            table ^= np.where((values >> bit) & 1, images[8 * byte + bit], np.uint32(0)).astype(np.uint32)
        tables.append(table.tolist())
    return tables
