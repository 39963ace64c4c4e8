#include "core/journal_mode.h"

#include <cctype>

namespace ucudnn {

Expected<JournalMode> parse_journal_mode(const std::string& text) {
  std::string v;
  for (unsigned char c : text) v.push_back(static_cast<char>(std::tolower(c)));
  if (v == "auto" || v.empty()) return JournalMode::kAuto;
  if (v == "wal") return JournalMode::kWal;
  if (v == "delete") return JournalMode::kDelete;
  if (v == "truncate") return JournalMode::kTruncate;
  if (v == "persist") return JournalMode::kPersist;
  return Error{"unknown journal mode '" + text + "' (expected auto, wal, delete, truncate or persist)"};
}

}  // namespace ucudnn
