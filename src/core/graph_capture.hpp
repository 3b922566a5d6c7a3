#pragma once
// Internal: the graph-capture contract's one check. A call that cannot be captured into
// a CUDA graph (it waits for the device, copies to or from pageable host memory, or
// keeps memory it allocates on the caller's stream) calls refuse_capture() before it
// writes or enqueues anything, so that a capture in progress stays valid and the
// caller can end it. cudaStreamIsCapturing is legal in every capture mode.

#include "cunum/core/stream.hpp"

namespace cunum::detail {

// Whether `stream` is being captured into a CUDA graph: a capture that is active, or
// one already invalidated and not yet ended. The legacy default stream counts as
// captured while a blocking stream of its device is (work on it would join that capture).
bool is_capturing(StreamHandle stream);

// Error(not_supported) naming the routine in progress, "cannot run on a stream being
// captured into a CUDA graph: <reason>", when `stream` is being captured; else nothing.
void refuse_capture(StreamHandle stream, const char* reason);

}  // namespace cunum::detail
