#include "tools/cli_suggest.h"

#include <algorithm>

namespace ucudnn::tools {
namespace {

// The known spelling nearest `word`, where it is near enough to be a typo of it.
std::optional<std::string> nearest(const std::string& word, const std::vector<std::string>& known) {
  std::optional<std::string> best;
  std::size_t best_distance = 0;
  for (const std::string& candidate : known) {
    const std::size_t distance = edit_distance(word, candidate);
    if (!best || distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  const std::size_t allowed = std::max<std::size_t>(2, word.size() / 3);
  if (best && best_distance <= allowed) return best;
  return std::nullopt;
}

std::string where(const CLI::App& app) {
  std::string path;
  for (const CLI::App* at = &app; at != nullptr && at->get_parent() != nullptr; at = at->get_parent()) {
    path = at->get_name() + (path.empty() ? "" : " " + path);
  }
  return path.empty() ? "" : " of `" + path + "`";
}

std::string with_suggestion(std::string sentence, const std::optional<std::string>& suggestion) {
  if (suggestion) sentence += ": did you mean " + *suggestion + "?";
  return sentence;
}

}  // namespace

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

std::optional<std::string> first_unknown_word(CLI::App& app, const std::vector<std::string>& args) {
  CLI::App* command = &app;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (word == "--") return std::nullopt;  // the rest is a program's
    if (word.size() > 1 && word[0] == '-') {
      const std::string name = word.substr(0, word.find('='));
      if (name == "--help" || name == "-h" || name == "--help-all") continue;
      const CLI::Option* option = command->get_option_no_throw(name);
      if (option == nullptr && command->get_allow_extras()) return std::nullopt;  // it says so itself (`run`)
      if (option == nullptr) {
        std::vector<std::string> known;
        for (const CLI::Option* each : command->get_options()) {
          for (const std::string& long_name : each->get_lnames()) known.push_back("--" + long_name);
        }
        return with_suggestion("unknown option '" + name + "'" + where(*command), nearest(name, known));
      }
      if (word.find('=') == std::string::npos && option->get_expected_min() > 0) ++i;  // its value
      continue;
    }
    const std::vector<CLI::App*> subcommands = command->get_subcommands([](CLI::App*) { return true; });
    if (!subcommands.empty()) {
      const auto found = std::find_if(subcommands.begin(), subcommands.end(),
                                      [&](const CLI::App* sub) { return sub->check_name(word); });
      if (found != subcommands.end()) {
        command = *found;
        continue;
      }
      std::vector<std::string> known;
      for (const CLI::App* sub : subcommands) known.push_back(sub->get_name());
      return with_suggestion("unknown subcommand '" + word + "'" + where(*command), nearest(word, known));
    }
    const bool takes_words = !command->get_options([](const CLI::Option* o) { return !o->nonpositional(); }).empty();
    if (takes_words) return std::nullopt;  // a program and its arguments (`run`), the command's own
    return "unexpected word '" + word + "'" + where(*command) + " (it takes options only)";
  }
  return std::nullopt;
}

}  // namespace ucudnn::tools
