#include "tools/command.h"

namespace ucudnn {

int report_error(std::ostream& err, int status, const std::string& message) {
  // Scripts and tests rely on one line per error, whatever the message carries.
  std::string line = message;
  for (char& c : line) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  err << "ucudnn: error: " << line << '\n';
  return status;
}

}  // namespace ucudnn
