#include "runtime/graph_replay.h"

#include <map>
#include <memory>

#include "core/logging.h"
#include "runtime/cuda_status.h"

namespace ucudnn::runtime {
namespace {

// What a device's captures are made with. A captured cuDNN kernel may refer to memory its handle
// owns, so the handle must outlive every graph: these live as long as the process (deliberately
// never destroyed, so that no static destructor order can free them first).
struct CaptureResources {
  std::mutex mutex;  // one capture at a time per device
  CudnnHandle handle;
  CudaStream stream;
};

Status capture_resources(int device, CaptureResources** out) {
  static std::mutex mutex;
  static auto* by_device = new std::map<int, std::unique_ptr<CaptureResources>>();
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<CaptureResources>& slot = (*by_device)[device];
  if (!slot) {
    int current = -1;
    UCUDNN_CHECK_CUDA(cudaGetDevice(&current));
    if (current != device) {
      return Error(ErrorCode::kNotSupported, "the plan's device " + std::to_string(device) +
                                                 " is not the current device " + std::to_string(current));
    }
    auto resources = std::make_unique<CaptureResources>();
    cudaStream_t stream = nullptr;
    UCUDNN_CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    resources->stream.reset(stream);
    cudnnHandle_t handle = nullptr;
    UCUDNN_CHECK_CUDNN(cudnnCreate(&handle));
    resources->handle.reset(handle);
    UCUDNN_CHECK_CUDNN(cudnnSetStream(handle, stream));
    slot = std::move(resources);
  }
  *out = slot.get();
  return Status::success();
}

}  // namespace

void GraphReplay::prepare(int device) {
  CaptureResources* resources = nullptr;
  if (!capture_resources(device, &resources).ok()) (void)cudaGetLastError();
}

Status GraphReplay::capture(int device, const std::function<Status(cudnnHandle_t)>& enqueue, CudaGraphExec* out) {
  CaptureResources* resources = nullptr;
  UCUDNN_TRY(capture_resources(device, &resources));
  std::lock_guard<std::mutex> lock(resources->mutex);
  // Relaxed: cuDNN may allocate lazily on its handle while capturing; the allocation happens for
  // real and is not part of the graph. Other threads are unaffected by this capture either way.
  UCUDNN_CHECK_CUDA(cudaStreamBeginCapture(resources->stream.get(), cudaStreamCaptureModeRelaxed));
  const Status enqueued = enqueue(resources->handle.get());
  cudaGraph_t raw_graph = nullptr;
  const cudaError_t ended = cudaStreamEndCapture(resources->stream.get(), &raw_graph);
  CudaGraph graph(raw_graph);
  if (!enqueued.ok()) {
    (void)cudaGetLastError();
    return enqueued;
  }
  if (ended != cudaSuccess) {
    (void)cudaGetLastError();
    return cuda_error(ended, "cudaStreamEndCapture", __FILE__, __LINE__);
  }
  cudaGraphExec_t exec = nullptr;
  UCUDNN_CHECK_CUDA(cudaGraphInstantiate(&exec, graph.get(), 0));
  out->reset(exec);
  return Status::success();
}

Status GraphReplay::launch(const CudaGraphExec& graph, cudaStream_t stream) {
  UCUDNN_CHECK_CUDA(cudaGraphLaunch(graph.get(), stream));
  return Status::success();
}

void GraphReplay::note_refusal(const Status& why) {
  warn_once("graph replay|" + why.message(),
            "a plan's calls could not be captured into a CUDA graph; they run directly from now on: " + why.message());
}

}  // namespace ucudnn::runtime
