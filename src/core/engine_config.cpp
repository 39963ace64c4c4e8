#include "core/engine_config.h"

#include <algorithm>
#include <cctype>
#include <limits>

namespace ucudnn {
namespace {

// Reads a non-negative decimal integer at `pos` (no sign, no leading '+'); false if none or too large.
bool read_number(const std::string& text, std::size_t* pos, std::int64_t* out) {
  const std::size_t start = *pos;
  std::int64_t value = 0;
  while (*pos < text.size() && std::isdigit(static_cast<unsigned char>(text[*pos]))) {
    const int digit = text[*pos] - '0';
    if (value > (std::numeric_limits<std::int64_t>::max() - digit) / 10) return false;
    value = value * 10 + digit;
    ++*pos;
  }
  *out = value;
  return *pos > start;
}

// A signed integer: knob values may be negative in principle.
bool read_signed(const std::string& text, std::size_t* pos, std::int64_t* out) {
  const bool negative = *pos < text.size() && text[*pos] == '-';
  if (negative) ++*pos;
  if (!read_number(text, pos, out)) return false;
  if (negative) *out = -*out;
  return true;
}

}  // namespace

std::string format_engine_config(EngineConfigId config) {
  std::sort(config.knobs.begin(), config.knobs.end());
  std::string text = "eng" + std::to_string(config.engine);
  for (std::size_t i = 0; i < config.knobs.size(); ++i) {
    text += i == 0 ? ":k" : ",k";
    text += std::to_string(config.knobs[i].first) + "=" + std::to_string(config.knobs[i].second);
  }
  return text;
}

Expected<EngineConfigId> parse_engine_config(const std::string& text) {
  const std::string bad = "engine configuration '" + text.substr(0, 80) + "': ";
  if (text.size() > kMaxEngineIdBytes) {
    return Error::invalid(bad + "its " + std::to_string(text.size()) + " bytes are more than the limit of " +
                          std::to_string(kMaxEngineIdBytes) + " bytes");
  }
  if (text.compare(0, 3, "eng") != 0) return Error::invalid(bad + "does not start with 'eng'");
  std::size_t pos = 3;
  EngineConfigId config;
  if (!read_number(text, &pos, &config.engine)) return Error::invalid(bad + "no engine number after 'eng'");
  if (pos == text.size()) return config;
  if (text[pos] != ':') return Error::invalid(bad + "expected ':' after the engine number");
  ++pos;
  while (true) {
    if (pos >= text.size() || text[pos] != 'k') return Error::invalid(bad + "expected 'k<type>=<value>'");
    ++pos;
    std::int64_t type = 0, value = 0;
    if (!read_number(text, &pos, &type) || type > std::numeric_limits<int>::max()) {
      return Error::invalid(bad + "a knob type is not a number");
    }
    if (pos >= text.size() || text[pos] != '=') return Error::invalid(bad + "expected '=' after a knob type");
    ++pos;
    if (!read_signed(text, &pos, &value)) return Error::invalid(bad + "a knob value is not a number");
    if (!config.knobs.empty() && config.knobs.back().first >= type) {
      return Error::invalid(bad + "knob types must be distinct and ascending");
    }
    if (config.knobs.size() == kMaxEngineKnobs) {
      return Error::invalid(bad + "more than " + std::to_string(kMaxEngineKnobs) +
                            " knobs (the limit of an engine id)");
    }
    config.knobs.emplace_back(static_cast<int>(type), value);
    if (pos == text.size()) return config;
    if (text[pos] != ',') return Error::invalid(bad + "expected ',' between knobs");
    ++pos;
  }
}

bool known_defective_engine(const ConvKey& key, std::int64_t engine) {
  auto above_one = [](const std::vector<int>& values) {
    return std::any_of(values.begin(), values.end(), [](int v) { return v > 1; });
  };
  // Wider than the cases reproduced (a dimension both strided and dilated): one engine on a rare
  // convolution is a small price for never losing the context.
  return engine == 73 && key.op == ConvOp::kBackwardData && key.x.dims.size() == 5 && above_one(key.conv.strides) &&
         above_one(key.conv.dilations);
}

}  // namespace ucudnn
