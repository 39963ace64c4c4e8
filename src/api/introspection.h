#pragma once
// A narrow look inside the library for ucudnn's own tools, beside the public API
// (include/ucudnn/ucudnn.h): what the process's benchmark table holds for a kernel. Tools use
// this and the public API only, never the plan builder itself.

#include <vector>

#include "core/batch_policy.h"
#include "core/conv_key.h"
#include "core/measurement.h"

namespace ucudnn::api {

/// Every row the process's benchmark table holds for the micro-batch sizes that `policy` lets
/// ucudnn plan `key` with (measured or read from the database by planning; nothing is measured
/// here). Empty for a kernel never planned.
std::vector<Measurement> recorded_rows(const ConvKey& key, BatchSizePolicy policy);

}  // namespace ucudnn::api
