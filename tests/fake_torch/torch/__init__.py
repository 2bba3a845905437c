# A fake torch for amdml's --deep tests (tests/fake_torch/README.md). AMDML_FAKE_TORCH
# picks the scenario. No real arithmetic: a Tensor only carries its shape.
import os
import time

from . import version
from .version import __version__

_MODE = os.environ.get('AMDML_FAKE_TORCH', 'ok')
_ARCHS = ['gfx900', 'gfx906', 'gfx908', 'gfx90a', 'gfx940', 'gfx941', 'gfx942', 'gfx1030', 'gfx1100']


class OutOfMemoryError(RuntimeError):
    pass


class device:
    def __init__(self, kind, index=0):
        self.type = kind
        self.index = index


class Tensor:
    def __init__(self, shape):
        self.shape = shape

    def __matmul__(self, other):
        return Tensor((self.shape[0], other.shape[1]))

    def __getitem__(self, key):
        rows = len(range(*key.indices(self.shape[0]))) if isinstance(key, slice) else 1
        return Tensor((rows, self.shape[1]))

    def cpu(self):
        return self


def randn(*shape, device=None):
    if device is not None and _MODE == 'invalid-device-function':
        raise RuntimeError('HIP error: invalid device function\n'
                           'HIP kernel errors might be asynchronously reported at some other API call, so the '
                           'stacktrace below might be incorrect.\n'
                           'For debugging consider passing AMD_SERIALIZE_KERNEL=3\n'
                           'Compile with `TORCH_USE_HIP_DSA` to enable device-side assertions.\n')
    if device is not None and _MODE == 'oom':
        raise OutOfMemoryError('HIP out of memory. Tried to allocate 16.00 MiB. GPU 0 has a total capacity of '
                               '512.00 MiB of which 0 bytes is free. Of the allocated memory 498.00 MiB is '
                               'allocated by PyTorch, and 2.00 MiB is reserved by PyTorch but unallocated.')
    return Tensor(tuple(shape))


def allclose(a, b, rtol=1e-05, atol=1e-08):
    return a.shape == b.shape


class _Props:
    gcnArchName = 'gfx1103'
    name = 'AMD Radeon 780M'


class _Cuda:
    OutOfMemoryError = OutOfMemoryError

    @staticmethod
    def is_available():
        return _MODE != 'unavailable'

    @staticmethod
    def device_count():
        return 0 if _MODE == 'unavailable' else 1

    @staticmethod
    def get_device_name(i=0):
        return _Props.name

    @staticmethod
    def get_device_properties(i=0):
        return _Props()

    @staticmethod
    def get_arch_list():
        return list(_ARCHS)

    @staticmethod
    def synchronize(d=None):
        while _MODE == 'hang':
            time.sleep(3600)
        time.sleep(0.01)  # the work a GPU would be doing: a plausible figure, not an instant


cuda = _Cuda()
