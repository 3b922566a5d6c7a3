"""cunum.Error and its subclasses: the C++ API's cunum::Error, one class per ErrorCode."""


class Error(RuntimeError):
    """Raised by every cunum call: the C++ cunum::Error.

    The message is the C++ one, "cunum [code]: routine: problem", naming the routine
    called (e.g. cunum::BlackScholesPricer::price) and, for an argument, the argument.
    An argument error is raised before anything is written or enqueued. `code` is the
    C++ ErrorCode's name.
    """

    code = "error"


class InvalidArgument(Error, ValueError):
    """An argument out of its domain: a size, a dtype, a shape, a non-contiguous array,
    memory the backend cannot use, a name off its list, a plan used on the wrong device."""

    code = "invalid_argument"


class NoDevice(Error):
    """The cuda backend, or a device object, was asked for and no usable driver or device exists."""

    code = "no_device"


class CudaFailure(Error):
    """A CUDA runtime or library call (cuRAND, cuFFT) failed; the message names the call and its status."""

    code = "cuda_failure"


class OutOfMemory(Error, MemoryError):
    """A device or host allocation failed, or a problem needs more memory than the machine or device has."""

    code = "out_of_memory"


class NotSupported(Error):
    """Valid input that the routine cannot serve (a stream being captured into a CUDA graph, say);
    the message names the limit."""

    code = "not_supported"


_CLASSES = {cls.code: cls for cls in (InvalidArgument, NoDevice, CudaFailure, OutOfMemory, NotSupported)}


def error_class(code):
    """The class raised for a C++ ErrorCode name (used by the extension)."""
    return _CLASSES.get(code, Error)
