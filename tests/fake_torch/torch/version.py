# The version module of the fake torch (tests/fake_torch/README.md); amdml's probe reads
# this file as text without importing it, as it reads a real wheel's torch/version.py.
from typing import Optional

__version__ = '2.5.1+rocm6.2'
debug = False
cuda: Optional[str] = None
git_version = '0000000000000000000000000000000000000000'
hip: Optional[str] = '6.2.41133-dd7f95766'
