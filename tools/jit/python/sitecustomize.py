"""ferry run's Python start-up hook (tools/jit/README.md, "XLA (JAX)").

`ferry run` puts this directory first on PYTHONPATH, so Python imports this
module at start-up (site.py's `import sitecustomize`). It does one thing for
one client: JAX starts its CUDA backend only where NVIDIA's device files
(/dev/nvidia0, /dev/nvidiactl, /dev/dxg) exist, and never asks the driver
(jax._src.hardware_utils.has_visible_nvidia_gpu). Under ferry there is no
such file, so JAX would quietly compute on the CPU. Once that module is
imported, its check also answers True when the process's libcuda.so.1 sees
a device. Then the sitecustomize this one shadows, if any, runs.
"""
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
_TARGET = "jax._src.hardware_utils"


def _driver_sees_a_device():
    try:
        import ctypes
        cuda = ctypes.CDLL("libcuda.so.1")
        count = ctypes.c_int(0)
        return cuda.cuInit(0) == 0 and cuda.cuDeviceGetCount(ctypes.byref(count)) == 0 and count.value > 0
    except OSError:
        return False


def _patch(module):
    original = getattr(module, "has_visible_nvidia_gpu", None)
    if original is None:
        return

    def has_visible_nvidia_gpu():
        return original() or _driver_sees_a_device()

    has_visible_nvidia_gpu.__doc__ = original.__doc__
    module.has_visible_nvidia_gpu = has_visible_nvidia_gpu


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name != _TARGET:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None and spec.loader is not None and hasattr(spec.loader, "exec_module"):
                original = spec.loader

                class _Loader(importlib.abc.Loader):
                    def create_module(self, s):
                        return original.create_module(s)

                    def exec_module(self, module):
                        original.exec_module(module)
                        _patch(module)

                spec.loader = _Loader()
                return spec
        return None


sys.meta_path.insert(0, _Finder())

# The sitecustomize this one shadows (a distribution's or a virtual
# environment's) still runs.
for _entry in list(sys.path):
    if os.path.abspath(_entry or os.curdir) == _HERE:
        continue
    _spec = importlib.machinery.PathFinder.find_spec("sitecustomize", [_entry])
    if _spec is not None and _spec.loader is not None:
        _module = importlib.util.module_from_spec(_spec)
        _spec.loader.exec_module(_module)
        break
