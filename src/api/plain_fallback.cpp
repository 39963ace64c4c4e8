#include "api/plain_fallback.h"

namespace ucudnn::api {

std::string fallback_warning(const std::string& what, const Error& failure, const std::string& instead) {
  return what + " failed (" + error_kind_name(failure.code) + "); " + instead + ": " + failure.message;
}

}  // namespace ucudnn::api
