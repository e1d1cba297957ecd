"""The few CUDA driver calls kperf's Python side needs, through ctypes:
device buffers for profile scratch and kernel arguments, read back to the
host, and the per-kernel shared-memory opt-in. No PyTorch, no CuPy: the
GPU machines kperf is checked on have neither, and Triton (3.9) launches
without them.

    from kperf.cuda import DeviceArray
    a = DeviceArray.from_numpy(np.ones((128, 64), np.float16))  # Triton takes it as *fp16
    ...
    host = a.numpy()

`libcuda.so.1` is loaded on first use (override: $KPERF_LIBCUDA); importing
this module needs neither the driver nor a GPU. Every call that fails raises
KperfError naming the call and CUDA's error name.
"""

from __future__ import annotations

import ctypes
import os
import threading
from typing import Any, Optional, Sequence, Tuple

from ._kperf import KperfError

# CUfunction_attribute (cuda.h).
FUNC_SHARED_SIZE_BYTES = 1
FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
# CUdevice_attribute (cuda.h).
DEVICE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97

# Without an opt-in a block gets this much shared memory, static and
# dynamic together (every NVIDIA GPU since Volta).
DEFAULT_SHARED_PER_BLOCK = 48 * 1024

_u64 = ctypes.c_uint64
_ptr = ctypes.c_void_p


class Driver:
    """The CUDA driver API, the calls kperf uses. `lib` is a loaded
    `ctypes.CDLL` (tests pass a stand-in)."""

    def __init__(self, lib: Any):
        self.lib = lib

    def _call(self, name: str, *args) -> None:
        rc = getattr(self.lib, name)(*args)
        if rc != 0:
            raise KperfError(f"CUDA driver: {name} failed: {self.error_name(rc)} ({rc})")

    def error_name(self, rc: int) -> str:
        out = ctypes.c_char_p()
        try:
            if self.lib.cuGetErrorName(ctypes.c_int(rc), ctypes.byref(out)) == 0 and out.value:
                return out.value.decode()
        except (AttributeError, TypeError, ValueError):
            pass
        return "unknown error"

    def make_current(self, device: int = 0) -> None:
        """Make `device`'s primary context current unless a context is
        (Triton and PyTorch use the same primary context)."""
        self._call("cuInit", ctypes.c_uint(0))  # idempotent; needed before any other call
        ctx = _ptr()
        self._call("cuCtxGetCurrent", ctypes.byref(ctx))
        if ctx.value:
            return
        dev = ctypes.c_int()
        self._call("cuDeviceGet", ctypes.byref(dev), ctypes.c_int(device))
        self._call("cuDevicePrimaryCtxRetain", ctypes.byref(ctx), dev)
        self._call("cuCtxSetCurrent", ctx)

    def current_context(self) -> int:
        ctx = _ptr()
        self._call("cuCtxGetCurrent", ctypes.byref(ctx))
        if not ctx.value:
            raise KperfError("CUDA driver: no context is current on this thread")
        return ctx.value

    def alloc(self, size: int, stream: Optional[int]) -> int:
        """`size` bytes, stream-ordered on `stream` (0/None: the default
        stream), zeroed before anything later on that stream runs."""
        ptr = _u64()
        s = _ptr(stream or None)
        self._call("cuMemAllocAsync", ctypes.byref(ptr), ctypes.c_size_t(max(size, 1)), s)
        try:
            self._call("cuMemsetD8Async", ptr, ctypes.c_ubyte(0), ctypes.c_size_t(size), s)
        except KperfError:
            self.lib.cuMemFreeAsync(ptr, s)
            raise
        return ptr.value

    def stream_capturing(self, stream: Optional[int]) -> bool:
        """Is `stream` being captured into a CUDA graph?"""
        status = ctypes.c_int()
        self._call("cuStreamIsCapturing", _ptr(stream or None), ctypes.byref(status))
        return status.value != 0

    def free(self, ptr: int, stream: Optional[int], context: Optional[int] = None) -> None:
        """Stream-ordered: freed once the work queued on `stream` is done."""
        if context:
            self._call("cuCtxPushCurrent_v2", _ptr(context))
        try:
            self._call("cuMemFreeAsync", _u64(ptr), _ptr(stream or None))
        finally:
            if context:
                popped = _ptr()
                self.lib.cuCtxPopCurrent_v2(ctypes.byref(popped))

    def copy_to_device(self, ptr: int, data: bytes) -> None:
        self._call("cuMemcpyHtoD_v2", _u64(ptr), ctypes.c_char_p(data), ctypes.c_size_t(len(data)))

    def copy_to_host(self, ptr: int, size: int, stream: Optional[int] = None,
                     context: Optional[int] = None) -> bytes:
        """`size` bytes at `ptr`, once the work queued on `stream` (which
        wrote them) is done; in `context` (the allocation's; default: the
        current one), so any thread may read any device's buffer."""
        if context:
            self._call("cuCtxPushCurrent_v2", _ptr(context))
        try:
            self._call("cuStreamSynchronize", _ptr(stream or None))
            out = ctypes.create_string_buffer(size)
            self._call("cuMemcpyDtoH_v2", out, _u64(ptr), ctypes.c_size_t(size))
            return out.raw
        finally:
            if context:
                popped = _ptr()
                self.lib.cuCtxPopCurrent_v2(ctypes.byref(popped))

    def synchronize(self) -> None:
        self._call("cuCtxSynchronize")

    def function_attribute(self, function: int, attribute: int) -> int:
        value = ctypes.c_int()
        self._call("cuFuncGetAttribute", ctypes.byref(value), ctypes.c_int(attribute), _ptr(function))
        return value.value

    def set_function_attribute(self, function: int, attribute: int, value: int) -> None:
        self._call("cuFuncSetAttribute", _ptr(function), ctypes.c_int(attribute), ctypes.c_int(value))

    def current_device_attribute(self, attribute: int) -> int:
        dev = ctypes.c_int()
        self._call("cuCtxGetDevice", ctypes.byref(dev))
        value = ctypes.c_int()
        self._call("cuDeviceGetAttribute", ctypes.byref(value), ctypes.c_int(attribute), dev)
        return value.value


_driver: Optional[Driver] = None
_driver_lock = threading.Lock()


def driver() -> Driver:
    """The process's driver, loaded on first use."""
    global _driver
    with _driver_lock:
        if _driver is None:
            name = os.environ.get("KPERF_LIBCUDA", "libcuda.so.1")
            try:
                lib = ctypes.CDLL(name)
            except OSError as e:
                raise KperfError(f"the CUDA driver ({name}) cannot be loaded: {e}; "
                                 "launching needs an NVIDIA GPU and its driver") from None
            _driver = Driver(lib)
        return _driver


def shared_opt_in(static_bytes: int, dynamic_bytes: int, allowed_dynamic: int, opt_in_limit: int) -> Optional[int]:
    """The dynamic shared-memory limit a kernel must be given, or None if
    the one it has (`allowed_dynamic`, the function's attribute) suffices.
    Refuses a kernel whose static + dynamic shared memory exceeds the
    device's `opt_in_limit` per block, which no opt-in can launch.

    Triton's launcher opts in only when its own dynamic size exceeds 48 KiB
    (driver.c, loadBinary), so a kernel at or just under 48 KiB to which
    kperf adds its rings (static shared memory) would fail to launch.
    """
    if static_bytes + dynamic_bytes > opt_in_limit:
        raise KperfError(f"the kernel needs {static_bytes} B of static shared memory (kperf's rings included) "
                         f"+ {dynamic_bytes} B dynamic, over the device's {opt_in_limit} B per block: "
                         "instrument with fewer --slots or --buffer global")
    return dynamic_bytes if dynamic_bytes > allowed_dynamic else None


def opt_in_shared(function: int, dynamic_bytes: int, drv: Optional[Driver] = None) -> Optional[int]:
    """Let `function` launch with `dynamic_bytes` of dynamic shared memory
    beside its static shared memory (kperf's rings); returns the limit set,
    if the function's own was too small. A larger limit (Triton's opt-in
    for its kernels over 48 KiB) is left alone."""
    drv = drv or driver()
    static = drv.function_attribute(function, FUNC_SHARED_SIZE_BYTES)
    allowed = drv.function_attribute(function, FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES)
    limit = drv.current_device_attribute(DEVICE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
    need = shared_opt_in(static, dynamic_bytes, allowed, max(limit, DEFAULT_SHARED_PER_BLOCK))
    if need is not None:
        drv.set_function_attribute(function, FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES, need)
    return need


class DeviceBuffer:
    """Zeroed device memory, stream-ordered: what kperf's profile allocator
    hands Triton (it reads `data_ptr()`). Freed (on its stream) when
    released or collected."""

    def __init__(self, size: int, stream: Optional[int] = None, drv: Optional[Driver] = None):
        self.size = size
        self.stream = stream
        self._driver = drv or driver()
        self.context = self._driver.current_context()
        self.ptr = self._driver.alloc(size, stream)

    def data_ptr(self) -> int:
        return self.ptr

    def to_bytes(self) -> bytes:
        """The contents, once the work queued on the buffer's stream is done
        (from any thread: the allocation's context is made current)."""
        if not self.ptr:
            raise KperfError("the device buffer was released")
        return self._driver.copy_to_host(self.ptr, self.size, self.stream, self.context)

    def release(self) -> None:
        if self.ptr:
            ptr, self.ptr = self.ptr, 0
            self._driver.free(ptr, self.stream, self.context)

    def __del__(self):
        try:
            self.release()
        except Exception:  # interpreter shutdown: the context may be gone
            pass


class DeviceArray(DeviceBuffer):
    """A device array Triton accepts as a pointer argument (it reads
    `data_ptr()` and `dtype`), made from and read back as numpy."""

    def __init__(self, shape: Sequence[int], dtype: Any, drv: Optional[Driver] = None):
        import numpy as np
        self.dtype = np.dtype(dtype)
        self.shape: Tuple[int, ...] = tuple(int(s) for s in shape)
        drv = drv or driver()
        drv.make_current()
        super().__init__(int(np.prod(self.shape, dtype=np.int64)) * self.dtype.itemsize, None, drv)

    @classmethod
    def from_numpy(cls, host: Any, drv: Optional[Driver] = None) -> "DeviceArray":
        import numpy as np
        host = np.ascontiguousarray(host)
        arr = cls(host.shape, host.dtype, drv)
        arr._driver.synchronize()  # the stream-ordered allocation and zeroing first
        arr._driver.copy_to_device(arr.ptr, host.tobytes())
        return arr

    def stride(self, dim: int) -> int:
        """Elements between neighbours along `dim` (row-major), as torch's."""
        n = 1
        for s in self.shape[dim + 1:]:
            n *= s
        return n

    def numpy(self) -> Any:
        import numpy as np
        return np.frombuffer(self.to_bytes(), dtype=self.dtype).reshape(self.shape)
