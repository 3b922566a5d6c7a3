"""The array libraries' conventions the extension follows: their current streams, and
new arrays made by the caller's own library (so that results live in its memory pool).

Used by the extension (python/src/arrays.cpp); nothing here is public API.
"""

import sys


def _library(array):
    return type(array).__module__.split(".", 1)[0]


def current_stream(like):
    """The current CUDA stream (an int handle) of the library owning `like`: CuPy's
    get_current_stream(), PyTorch's current_stream() on the tensor's device. The
    extension reads the same through cupy.cuda.get_current_stream and
    torch._C._cuda_getCurrentRawStream directly, and calls this where they are missing."""
    library = _library(like)
    if library == "cupy":
        return sys.modules["cupy"].cuda.get_current_stream().ptr
    if library == "torch":
        torch = sys.modules["torch"]
        return torch.cuda.current_stream(like.device).cuda_stream
    return 0


class _StreamHandle:
    """A raw stream handle through the CUDA stream protocol (__cuda_stream__)."""

    def __init__(self, handle):
        self.handle = handle

    def __cuda_stream__(self):
        return (0, self.handle)


def _cupy_stream(cupy, stream):
    """CuPy's stream object for the int handle `stream` (1: the legacy default stream):
    Stream.from_external where CuPy has it (CuPy 14 deprecates ExternalStream)."""
    if stream == 1:
        return cupy.cuda.Stream.null
    if hasattr(cupy.cuda.Stream, "from_external"):
        return cupy.cuda.Stream.from_external(_StreamHandle(stream))
    return cupy.cuda.ExternalStream(stream)


def empty(like, shape, dtype, stream):
    """A new uninitialised array of `like`'s library on its device (host memory for a
    NumPy array or a CPU tensor), for work on the stream `stream` (an int handle; 1 is
    the legacy default stream), or None when `like` is from a library whose arrays
    cunum does not allocate (JAX: immutable)."""
    library = _library(like)
    if library == "cupy":
        cupy = sys.modules["cupy"]
        with cupy.cuda.Device(like.device.id), _cupy_stream(cupy, stream):
            return cupy.empty(shape, dtype=dtype)
    if library == "torch":
        torch = sys.modules["torch"]
        result = torch.empty(shape, dtype=getattr(torch, dtype), device=like.device)
        if like.device.type != "cuda":
            return result
        current = torch.cuda.current_stream(like.device)
        if stream not in (1, current.cuda_stream):
            # The caching allocator may hand the block out again once the tensor dies;
            # record the stream that writes it so that it waits for that work.
            result.record_stream(torch.cuda.ExternalStream(stream, device=like.device))
        return result
    if library in ("numba", "numba_cuda"):
        from numba import cuda

        return cuda.device_array(shape, dtype=dtype, stream=cuda.external_stream(stream) if stream != 1 else 0)
    if library == "numpy":
        return sys.modules["numpy"].empty(shape, dtype=dtype)
    return None


def wrap(like, array):
    """`array` (an array exported by the extension through DLPack, viewing memory it
    does not copy) as an array of `like`'s library: NumPy, CuPy, PyTorch and JAX take
    it through their from_dlpack without a copy. With `like` None: a NumPy array for
    host memory, `array` itself (any library's from_dlpack takes it) for device memory."""
    library = "numpy" if like is None and array.__dlpack_device__()[0] == 1 else _library(like)
    if library == "numpy":
        return sys.modules["numpy"].from_dlpack(array)
    if library == "cupy":
        return sys.modules["cupy"].from_dlpack(array)
    if library == "torch":
        return sys.modules["torch"].from_dlpack(array)
    if library in ("jax", "jaxlib"):
        import jax.dlpack

        return jax.dlpack.from_dlpack(array)
    return array
