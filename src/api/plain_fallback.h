#pragma once
// The front-end's one fallback: where the planner failed, a call does what plain cuDNN would, and
// says so once per op and failure, naming the failure's kind (a CUDA, GLPK, time-limit or database
// failure is never silent). Invalid input that plain cuDNN refuses too is the caller's to see in
// the status cuDNN returns, not worth a warning.

#include <string>

#include "core/conv_op.h"
#include "core/expected.h"
#include "core/logging.h"

namespace ucudnn::api {

/// A fallback's warning: "<what> failed (<kind>); <instead>: <message>", e.g. "planning a fwd
/// convolution failed (CUDA failure); running it as plain cuDNN would: cudaMemcpy failed ...".
std::string fallback_warning(const std::string& what, const Error& failure, const std::string& instead);

/// Runs `plain` (a Status() callable) in place of the plan that failed with `failure`.
template <typename Plain>
Status plain_cudnn_instead(ConvOp op, const Status& failure, Plain&& plain) {
  Status ran = plain();
  if (failure.error().code != ErrorCode::kBadParam || ran.ok()) {
    warn_once(std::string(short_name(op)) + "|" + failure.message(),
              fallback_warning(std::string("planning a ") + short_name(op) + " convolution", failure.error(),
                               "running it as plain cuDNN would"));
  }
  return ran;
}

}  // namespace ucudnn::api
