"""cunum.random on NumPy arrays, held to Philox4x32-10 written here from its
definition (Salmon et al., SC11) and cunum's stream layout (include/cunum/device/philox.hpp)."""

import numpy as np
import pytest

import cunum
from conftest import require_error

pytestmark = pytest.mark.cpu

MASK = 0xFFFFFFFF


def philox4x32_10(counter, key0, key1):
    c = list(counter)
    for _ in range(10):
        product0 = 0xD2511F53 * c[0]
        product1 = 0xCD9E8D57 * c[2]
        c = [(product1 >> 32) ^ c[1] ^ key0, product1 & MASK, (product0 >> 32) ^ c[3] ^ key1, product0 & MASK]
        key0 = (key0 + 0x9E3779B9) & MASK
        key1 = (key1 + 0xBB67AE85) & MASK
    return c


def generator_word(seed, word):
    # Block b of the stream is block b / 65536 of subsequence b mod 65536.
    block = word // 4
    subsequence, index = block % 65536, block // 65536
    counter = [index & MASK, index >> 32, subsequence & MASK, subsequence >> 32]
    return philox4x32_10(counter, seed & MASK, seed >> 32)[word % 4]


def test_uniform_floats_are_the_philox_stream():
    seed = 0x123456789ABCDEF
    generator = cunum.RandomGenerator("philox4x32_10", seed, backend="cpu")
    generator.offset = 262_141  # straddles a block and a subsequence round
    values = generator.uniform(size=11, dtype="float32")
    words = np.array([generator_word(seed, 262_141 + k) for k in range(11)], dtype=np.float32)
    expected = words * np.float32(2.3283064365386963e-10) + np.float32(1.1641532182693481e-10)
    assert values.dtype == np.float32 and np.array_equal(values, expected)
    assert generator.offset == 262_141 + 11


def test_uniform_doubles_pair_two_words():
    generator = cunum.RandomGenerator(seed=7, backend="cpu")
    values = generator.uniform(size=5)
    expected = []
    for k in range(5):
        x, y = generator_word(7, 2 * k), generator_word(7, 2 * k + 1)
        z = x ^ ((y << 21) & ((1 << 64) - 1))
        expected.append(z * 1.1102230246251565e-16 + 5.5511151231257827e-17)
    assert values.dtype == np.float64 and np.array_equal(values, np.array(expected))
    assert generator.offset == 10


def test_fills_in_place_continue_the_stream_and_copies_are_independent():
    generator = cunum.RandomGenerator("mrg32k3a", 5, backend="cpu")
    copy = __import__("copy").copy(generator)
    out = np.empty((3, 4), np.float64)
    assert generator.uniform(out) is out
    assert np.array_equal(copy.uniform(size=(3, 4)), out)
    normals = generator.normal(size=100_000, mean=2.0, stddev=0.5)
    assert normals.mean() == pytest.approx(2.0, abs=0.01) and normals.std() == pytest.approx(0.5, rel=0.01)
    assert np.all((out > 0) & (out <= 1))


def test_sobol_fills_are_dimension_major():
    generator = cunum.RandomGenerator("sobol32", backend="cpu")
    generator.dimensions = 2
    values = generator.uniform(size=8)
    # cuRAND's layout: dimension k's points contiguous. The first points of Sobol's first
    # two dimensions are 0, 1/2, 3/4, 1/4 and 0, 1/2, 1/4, 3/4; a 32-bit word x maps to the
    # double x 2^-32 + 2^-32 (cuRAND's).
    assert np.array_equal(values[:4], np.array([0, 0.5, 0.75, 0.25]) + 2.0**-32)
    assert np.array_equal(values[4:], np.array([0, 0.5, 0.25, 0.75]) + 2.0**-32)
    require_error(cunum.InvalidArgument, "argument 'n'", generator.uniform, size=7)


def test_bad_arguments_are_refused_by_name():
    generator = cunum.RandomGenerator(backend="cpu")
    require_error(cunum.InvalidArgument, "argument 'kind'", cunum.RandomGenerator, "xorwow")
    require_error(cunum.InvalidArgument, "argument 'size' is None", generator.uniform)
    require_error(cunum.InvalidArgument, "argument 'out' has dtype int32", generator.uniform, np.empty(3, np.int32))
    require_error(cunum.InvalidArgument, "argument 'stddev'", generator.normal, size=3, stddev=-1.0)
    require_error(cunum.InvalidArgument, "argument 'dimensions'", setattr, generator, "dimensions", 3)
