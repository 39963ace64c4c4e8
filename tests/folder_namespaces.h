#pragma once
// Tests see every folder: each folder's namespace, opened into ucudnn for the test files
// (ucudnn::X and unqualified names inside namespace ucudnn find every folder's X).

namespace ucudnn::optimize {}
namespace ucudnn::store {}
namespace ucudnn::runtime {}
namespace ucudnn::api {}
namespace ucudnn::tools {}
namespace ucudnn::preload {}

namespace ucudnn {
using namespace optimize;
using namespace store;
using namespace runtime;
using namespace api;
using namespace tools;
using namespace preload;
}  // namespace ucudnn
