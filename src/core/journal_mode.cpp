#include "core/journal_mode.h"

#include "core/spelling.h"

namespace ucudnn {

namespace {
const Spelling<JournalMode> kJournalModes[] = {{"auto", JournalMode::kAuto},
                                               {"wal", JournalMode::kWal},
                                               {"delete", JournalMode::kDelete},
                                               {"truncate", JournalMode::kTruncate},
                                               {"persist", JournalMode::kPersist}};
}  // namespace

Expected<JournalMode> parse_journal_mode(const std::string& text) {
  if (text.empty()) return JournalMode::kAuto;
  return parse_spelling<JournalMode>(text, kJournalModes, "journal mode");
}

}  // namespace ucudnn
