#pragma once
// What to say where the command line holds a word no command knows: the word, where it was met,
// and the known spelling closest to it ("did you mean --measurements?"), rather than CLI11's
// "--measurements is required" or its list of unexpected words in reverse.

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

namespace ucudnn::tools {

/// The first word of `args` (as given to `app`, in order) that is no option or subcommand where it
/// stands, as one sentence with the closest known spelling where one is near; nullopt where every
/// word is known (a refusal of another kind).
std::optional<std::string> first_unknown_word(CLI::App& app, const std::vector<std::string>& args);

/// Edit distance (insertions, deletions, substitutions, transpositions of neighbours).
std::size_t edit_distance(const std::string& a, const std::string& b);

}  // namespace ucudnn::tools
