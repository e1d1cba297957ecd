"""kperf.cuda without a GPU: the shared-memory opt-in rule, and the driver
calls as they reach libcuda (a stand-in library records them)."""

import ctypes

import pytest

import kperf
from kperf.cuda import DeviceBuffer, Driver, FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES, opt_in_shared, shared_opt_in

KIB = 1024


# The driver's default dynamic limit is 48 KiB less the static shared memory.
@pytest.mark.parametrize("static, dynamic, allowed, limit, expected", [
    (0, 48 * KIB, 48 * KIB, 227 * KIB, None),  # exactly the default: no opt-in
    (736, 48 * KIB, 48 * KIB - 736, 227 * KIB, 48 * KIB),  # kperf's rings push it over
    (736, 40 * KIB, 48 * KIB - 736, 227 * KIB, None),
    (8 * KIB, 41 * KIB, 40 * KIB, 99 * KIB, 41 * KIB),
    (2 * KIB, 97 * KIB, 95 * KIB, 99 * KIB, 97 * KIB),  # right at the device's limit
    (736, 64 * KIB, 227 * KIB - 736, 227 * KIB, None),  # Triton opted in for more
])
def test_opt_in_rule(static, dynamic, allowed, limit, expected):
    assert shared_opt_in(static, dynamic, allowed, limit) == expected


def test_over_the_device_limit_names_the_way_out():
    with pytest.raises(kperf.KperfError, match=r"8192 B of static .* 94208 B dynamic, over the device's 101376"):
        shared_opt_in(8 * KIB, 92 * KIB, 99 * KIB, 99 * KIB)
    # Triton's own opt-in (over 48 KiB) does not make room for kperf's rings either.
    with pytest.raises(kperf.KperfError, match="over the device's"):
        shared_opt_in(2 * KIB, 226 * KIB, 225 * KIB, 227 * KIB)


class FakeLib:
    """Stands in for libcuda.so: records each call with its plain values and
    answers out-parameters; `fail` makes one entry point return an error."""

    def __init__(self, fail=None):
        self.calls, self.fail, self.next_ptr = [], fail, 0x7000_0000
        self.memory = {}

    def __getattr__(self, name):
        def entry(*args):
            vals = [_plain(a) for a in args]
            self.calls.append((name, vals))
            if name == self.fail:
                return 2  # CUDA_ERROR_OUT_OF_MEMORY
            if name == "cuGetErrorName":
                args[1]._obj.value = b"CUDA_ERROR_OUT_OF_MEMORY"
            elif name == "cuMemAllocAsync":
                args[0]._obj.value = self.next_ptr
                self.memory[self.next_ptr] = bytearray(vals[1])
            elif name == "cuMemsetD8Async":
                self.memory[vals[0]][:vals[2]] = bytes([vals[1]]) * vals[2]
            elif name == "cuMemcpyDtoH_v2":
                ctypes.memmove(args[0], bytes(self.memory[vals[1]][:vals[2]]), vals[2])
            elif name == "cuFuncGetAttribute":
                args[0]._obj.value = {1: 736, 8: 48 * KIB - 736}[vals[1]]
            elif name == "cuCtxGetCurrent":
                args[0]._obj.value = 0xC0
            elif name == "cuCtxGetDevice":
                args[0]._obj.value = 0
            elif name == "cuDeviceGetAttribute":
                args[0]._obj.value = 227 * KIB
            return 0
        return entry


def _plain(a):
    a = getattr(a, "_obj", a)  # byref(x) -> x
    return getattr(a, "value", a)


def test_device_buffers_are_stream_ordered_zeroed_read_back_and_freed():
    lib = FakeLib()
    drv = Driver(lib)
    buf = DeviceBuffer(64, stream=0x55, drv=drv)
    lib.memory[buf.data_ptr()][:4] = b"kprf"  # what a kernel would write
    assert buf.to_bytes()[:5] == b"kprf\0"
    buf.release()
    buf.release()  # once only
    names = [c[0] for c in lib.calls]
    # Read back and freed in the allocation's context, waiting on its stream only.
    assert names == ["cuCtxGetCurrent", "cuMemAllocAsync", "cuMemsetD8Async",
                     "cuCtxPushCurrent_v2", "cuStreamSynchronize", "cuMemcpyDtoH_v2", "cuCtxPopCurrent_v2",
                     "cuCtxPushCurrent_v2", "cuMemFreeAsync", "cuCtxPopCurrent_v2"]
    _, alloc, memset, push, sync, _, _, _, free, _ = lib.calls
    assert alloc[1][1:] == [64, 0x55] and memset[1][1:] == [0, 64, 0x55] and free[1] == [0x7000_0000, 0x55]
    assert push[1] == [0xC0] and sync[1] == [0x55]
    with pytest.raises(kperf.KperfError, match="released"):
        buf.to_bytes()


def test_a_failing_call_is_named_with_cudas_error():
    drv = Driver(FakeLib(fail="cuMemAllocAsync"))
    with pytest.raises(kperf.KperfError, match=r"cuMemAllocAsync failed: CUDA_ERROR_OUT_OF_MEMORY \(2\)"):
        DeviceBuffer(1 << 40, drv=drv)


def test_memory_is_freed_when_zeroing_it_fails():
    lib = FakeLib(fail="cuMemsetD8Async")
    with pytest.raises(kperf.KperfError, match="cuMemsetD8Async failed"):
        DeviceBuffer(64, drv=Driver(lib))
    assert [c[0] for c in lib.calls][-1] == "cuMemFreeAsync"


def test_opting_in_sets_the_functions_dynamic_limit():
    lib = FakeLib()
    assert opt_in_shared(0xF00, 48 * KIB, Driver(lib)) == 48 * KIB
    assert lib.calls[-1] == ("cuFuncSetAttribute", [0xF00, FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES, 48 * KIB])
    assert opt_in_shared(0xF00, 40 * KIB, Driver(FakeLib())) is None  # fits the default


def test_no_driver_is_a_clear_error(monkeypatch):
    import kperf.cuda as kc
    monkeypatch.setattr(kc, "_driver", None)
    monkeypatch.setenv("KPERF_LIBCUDA", "libcuda-that-is-not-here.so.1")
    with pytest.raises(kperf.KperfError, match="cannot be loaded.*NVIDIA GPU"):
        kc.driver()
