#include "src/core/graph_capture.hpp"

#include <cuda_runtime.h>

#include <string>

#include "cunum/core/error.hpp"
#include "src/core/check.hpp"
#include "src/core/routine.hpp"

namespace cunum::detail {

bool is_capturing(StreamHandle stream) {
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  const cudaError_t status = cudaStreamIsCapturing(stream, &capture);
  if (status == cudaErrorStreamCaptureImplicit) {
    // The legacy stream while a blocking stream captures. The runtime records the
    // status as the thread's last error; clear it (only it).
    if (cudaPeekAtLastError() == status) cudaGetLastError();
    return true;
  }
  CUNUM_CHECK(status);
  return capture != cudaStreamCaptureStatusNone;
}

void refuse_capture(StreamHandle stream, const char* reason) {
  if (!is_capturing(stream)) return;
  const char* routine = RoutineScope::current();
  throw Error(ErrorCode::not_supported, std::string(routine != nullptr ? routine : "cunum") +
                                            ": cannot run on a stream being captured into a CUDA graph: " + reason);
}

}  // namespace cunum::detail
