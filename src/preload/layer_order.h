#pragma once
// One ucudnn layer per process. Two copies of the LD_PRELOAD layer (an old install in LD_PRELOAD
// and `ucudnn run`'s, say) would both load, and the first one's "real" cuDNN would be the second:
// every convolution planned twice, the second layer splitting the first one's micro-batches as
// kernels of their own. The first in the search order (the one whose definitions the program
// gets) intercepts; every other passes each call straight to cuDNN, and the first says so once.

namespace ucudnn::preload {

/// Whether a ucudnn layer ahead of this one in the search order intercepts: then this one passes
/// every call through. Decided once.
bool another_layer_intercepts();

/// The file of the next ucudnn layer after this one in the search order ("" where there is none):
/// what the intercepting layer names when it says it is not alone.
const char* next_layer_file();

}  // namespace ucudnn::preload
