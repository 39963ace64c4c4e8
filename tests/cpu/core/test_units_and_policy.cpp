// Byte sizes as users write them, and the batch-size policies.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/batch_policy.h"
#include "core/env_config.h"
#include "core/units.h"
#include "test_helpers.h"

namespace ucudnn {
using testing::kHugeNumber;
namespace {

constexpr std::size_t kKiB = 1024;
constexpr std::size_t kMiB = kKiB * 1024;
constexpr std::size_t kGiB = kMiB * 1024;

std::size_t parsed(const std::string& text) {
  const auto size = parse_byte_size(text);
  EXPECT_TRUE(size.ok()) << "'" << text << "': " << size.message();
  return size.ok() ? *size : 0;
}

TEST(ByteSizeParser, AcceptsPlainBytes) {
  EXPECT_EQ(parsed("0"), 0u);
  EXPECT_EQ(parsed("1048576"), kMiB);
  EXPECT_EQ(parsed("67108864"), 64 * kMiB);
  EXPECT_EQ(parsed("100B"), 100u);  // a unit says small is meant
  EXPECT_EQ(parsed("1 B"), 1u);
}

TEST(ByteSizeParser, RefusesABareNumberBelowOneMiB) {
  for (const char* text : {"1", "64", "1048575", " 512 "}) {
    const auto size = parse_byte_size(text);
    ASSERT_FALSE(size.ok()) << text;
    EXPECT_NE(size.message().find("is less than 1 MiB"), std::string::npos) << size.message();
    EXPECT_NE(size.message().find("MiB?)"), std::string::npos) << size.message();
  }
}

TEST(ByteSizeParser, RefusesALeadingZeroAsTheIntegerOptionsDo) {
  for (const char* text : {"010MiB", "00", "0064MiB", "01.5GiB", " 08M"}) {
    const auto size = parse_byte_size(text);
    ASSERT_FALSE(size.ok()) << text;
    EXPECT_NE(size.message().find("leading zero"), std::string::npos) << size.message();
  }
  EXPECT_EQ(parsed("0"), 0u);
  EXPECT_EQ(parsed("0B"), 0u);
  EXPECT_EQ(parsed("0.5GiB"), 512 * kMiB);
}

TEST(ByteSizeParser, AcceptsBinaryUnits) {
  EXPECT_EQ(parsed("512KiB"), 512 * kKiB);
  EXPECT_EQ(parsed("8MiB"), 8 * kMiB);
  EXPECT_EQ(parsed("64MiB"), 64 * kMiB);
  EXPECT_EQ(parsed("1GiB"), kGiB);
  EXPECT_EQ(parsed("2TiB"), 2 * 1024 * kGiB);
  EXPECT_EQ(parsed("4K"), 4 * kKiB);
  EXPECT_EQ(parsed("3M"), 3 * kMiB);
  EXPECT_EQ(parsed("64M"), parsed("64MiB"));
  EXPECT_EQ(parsed("64M"), 67108864u);
  EXPECT_EQ(parsed("2G"), 2 * kGiB);
  EXPECT_EQ(parsed("1T"), 1024 * kGiB);
  EXPECT_EQ(parsed("1.5KiB"), 1536u);
  EXPECT_EQ(parsed("0.5MiB"), 512 * kKiB);
}

// Frameworks write MB meaning MiB, SI means 10^6: neither reading is guessed. The message names
// the input, the ambiguity and the binary spelling with its bytes.
TEST(ByteSizeParser, RefusesDecimalLookingUnitsAsAmbiguous) {
  const struct {
    const char* text;
    const char* suggestion;
  } cases[] = {
      {"64MB", "write 64MiB (67108864 bytes) or a number of bytes"},
      {"1KB", "write 1KiB (1024 bytes)"},
      {"2gb", "write 2GiB (2147483648 bytes)"},
      {"1TB", "write 1TiB (1099511627776 bytes)"},
      {"1.5MB", "write 1.5MiB (1572864 bytes)"},
      {" 64 Mb ", "write 64MiB (67108864 bytes)"},
      {"0MB", "write 0MiB (0 bytes)"},
  };
  for (const auto& c : cases) {
    const auto size = parse_byte_size(c.text);
    ASSERT_FALSE(size.ok()) << "'" << c.text << "' parsed as " << *size;
    EXPECT_NE(size.message().find("is ambiguous"), std::string::npos) << size.message();
    EXPECT_NE(size.message().find(c.suggestion), std::string::npos) << size.message();
    EXPECT_EQ(size.message().find('\n'), std::string::npos) << size.message();
  }
  const std::string message = parse_byte_size("64MB").message();
  EXPECT_NE(message.find("'64MB' is ambiguous (MB is 2^20 bytes to some frameworks, 10^6 to SI)"), std::string::npos)
      << message;
}

TEST(ByteSizeParser, AmbiguousUnitWithoutAUsableSpellingSuggestsOnlyTheUnits) {
  // Too large for a size, or not whole bytes in the binary unit: no spelling that is refused too.
  for (const char* text : {"99999999999999999999TB", "0.3KB"}) {
    const auto size = parse_byte_size(text);
    ASSERT_FALSE(size.ok()) << text;
    EXPECT_NE(size.message().find("is ambiguous"), std::string::npos) << size.message();
    EXPECT_NE(size.message().find("write a size in KiB, MiB, GiB or TiB, or a number of bytes"), std::string::npos)
        << size.message();
  }
}

TEST(ByteSizeParser, TheUnitsPhraseStatesTheRule) {
  // What every size option's help says; it must agree with the parser.
  const std::string phrase = kByteSizeUnits;
  EXPECT_NE(phrase.find("64MiB or 64M = 67108864 bytes"), std::string::npos);
  EXPECT_EQ(parsed("64MiB"), 67108864u);
  EXPECT_EQ(parsed("64M"), 67108864u);
  EXPECT_NE(phrase.find("MB is refused"), std::string::npos);
  EXPECT_FALSE(parse_byte_size("64MB").ok());
}

// The UCUDNN_* sizes go through the same parser: MB is refused there too, naming the variable.
TEST(ByteSizeParser, EnvironmentSizesRefuseMBNamingTheVariable) {
  SettingValues values;
  values["UCUDNN_DEFAULT_WORKSPACE_LIMIT"] = "64MB";
  auto config = parse_settings(values);
  ASSERT_FALSE(config.ok());
  EXPECT_NE(config.message().find("UCUDNN_DEFAULT_WORKSPACE_LIMIT"), std::string::npos) << config.message();
  EXPECT_NE(config.message().find("write 64MiB (67108864 bytes)"), std::string::npos) << config.message();

  values = SettingValues{};
  values["UCUDNN_TOTAL_WORKSPACE_SIZE"] = "120MB";
  config = parse_settings(values);
  ASSERT_FALSE(config.ok());
  EXPECT_NE(config.message().find("UCUDNN_TOTAL_WORKSPACE_SIZE"), std::string::npos) << config.message();
  EXPECT_NE(config.message().find("is ambiguous"), std::string::npos) << config.message();

  values = SettingValues{};
  values["UCUDNN_DEFAULT_WORKSPACE_LIMIT"] = "64M";
  values["UCUDNN_FORCE_WORKSPACE_LIMIT"] = "1G";
  values["UCUDNN_TOTAL_WORKSPACE_SIZE"] = "120MiB";
  config = parse_settings(values);
  ASSERT_TRUE(config.ok()) << config.message();
  EXPECT_EQ(config->default_workspace_limit, 64 * kMiB);
  EXPECT_EQ(config->forced_workspace_limit, kGiB);
  EXPECT_EQ(config->total_workspace, 120 * kMiB);
}

TEST(ByteSizeParser, IgnoresCaseAndSpaces) {
  EXPECT_EQ(parsed("64mib"), 64 * kMiB);
  EXPECT_EQ(parsed("64MIB"), 64 * kMiB);
  EXPECT_EQ(parsed("64 MiB"), 64 * kMiB);
  EXPECT_EQ(parsed("  8 mib  "), 8 * kMiB);
  EXPECT_EQ(parsed("\t1gib\n"), kGiB);
  EXPECT_EQ(parsed("1kib"), kKiB);
  EXPECT_EQ(parsed("64 m"), 64 * kMiB);
}

TEST(ByteSizeParser, RejectsMalformedSizes) {
  for (const char* text : {"", "   ", "abc", "MiB", "12XB", "1.5", "0.5B", "-1", "-1MiB", "1.2.3",
                           ".", "1 2", "64MiBs", "1e3"}) {
    const auto size = parse_byte_size(text);
    EXPECT_FALSE(size.ok()) << "'" << text << "' parsed as " << (size.ok() ? *size : 0);
    if (!size.ok()) {
      EXPECT_FALSE(size.message().empty());
    }
  }
}

TEST(ByteSizeParser, ErrorNamesTheInput) {
  const auto size = parse_byte_size("12XB");
  ASSERT_FALSE(size.ok());
  EXPECT_NE(size.message().find("12XB"), std::string::npos) << size.message();
}

TEST(ByteSizeParser, SizeTooLargeForADoubleIsOutOfRangeNotAnException) {
  for (const std::string& text : {kHugeNumber, kHugeNumber + "MiB", "1" + std::string(330, '0') + ".5GiB",
                                  std::string("18446744073709551616"), std::string("17179869184GiB")}) {
    const auto size = parse_byte_size(text);
    ASSERT_FALSE(size.ok()) << text;
    EXPECT_NE(size.message().find("out of range"), std::string::npos) << size.message();
  }
}

TEST(ByteSizeFormatter, UsesTheLargestWholeUnit) {
  EXPECT_EQ(format_byte_size(0), "0 B");
  EXPECT_EQ(format_byte_size(512), "512 B");
  EXPECT_EQ(format_byte_size(1023), "1023 B");
  EXPECT_EQ(format_byte_size(kKiB), "1 KiB");
  EXPECT_EQ(format_byte_size(1536), "1.5 KiB");
  EXPECT_EQ(format_byte_size(64 * kMiB), "64 MiB");
  EXPECT_EQ(format_byte_size(kGiB), "1 GiB");
  EXPECT_EQ(format_byte_size(43168403), "41.2 MiB");  // alex_conv2 fwd's planned workspace
}

TEST(ByteSizeFormatter, RoundTripsThroughTheParser) {
  for (std::size_t bytes : {std::size_t{0}, std::size_t{7}, kKiB, 3 * kKiB / 2, 64 * kMiB,
                            5 * kGiB / 2, 1024 * kGiB}) {
    EXPECT_EQ(parsed(format_byte_size(bytes)), bytes) << format_byte_size(bytes);
  }
}

TEST(BatchSizePolicyParser, AcceptsEverySpellingIgnoringCase) {
  const struct {
    const char* text;
    BatchSizePolicy policy;
  } cases[] = {
      {"all", BatchSizePolicy::kAll},
      {"ALL", BatchSizePolicy::kAll},
      {"powerOfTwo", BatchSizePolicy::kPowerOfTwo},
      {"POWEROFTWO", BatchSizePolicy::kPowerOfTwo},
      {"power_of_two", BatchSizePolicy::kPowerOfTwo},
      {"power-of-two", BatchSizePolicy::kPowerOfTwo},
      {"undivided", BatchSizePolicy::kUndivided},
      {"Undivided", BatchSizePolicy::kUndivided},
  };
  for (const auto& c : cases) {
    const auto policy = parse_batch_size_policy(c.text);
    ASSERT_TRUE(policy.ok()) << c.text << ": " << policy.message();
    EXPECT_EQ(*policy, c.policy) << c.text;
  }
}

TEST(BatchSizePolicyParser, RejectsUnknownPolicies) {
  for (const char* text : {"", "half", "pow2", "power of two", "powersOfTwo", "al"}) {
    const auto policy = parse_batch_size_policy(text);
    EXPECT_FALSE(policy.ok()) << "'" << text << "'";
    if (!policy.ok()) {
      EXPECT_NE(policy.message().find(std::string("'") + text + "'"), std::string::npos)
          << policy.message();
    }
  }
}

TEST(BatchSizePolicyParser, CanonicalNamesRoundTrip) {
  for (BatchSizePolicy policy :
       {BatchSizePolicy::kAll, BatchSizePolicy::kPowerOfTwo, BatchSizePolicy::kUndivided}) {
    const auto parsed_policy = parse_batch_size_policy(to_string(policy));
    ASSERT_TRUE(parsed_policy.ok());
    EXPECT_EQ(*parsed_policy, policy);
  }
  EXPECT_STREQ(to_string(BatchSizePolicy::kPowerOfTwo), "powerOfTwo");
}

TEST(AllowedMicroBatchSizes, AllListsEverySize) {
  EXPECT_EQ(allowed_micro_batch_sizes(BatchSizePolicy::kAll, 5), (std::vector<int>{1, 2, 3, 4, 5}));
  EXPECT_EQ(allowed_micro_batch_sizes(BatchSizePolicy::kAll, 256).size(), 256u);
}

TEST(AllowedMicroBatchSizes, PowerOfTwoAddsTheBatchItself) {
  EXPECT_EQ(allowed_micro_batch_sizes(BatchSizePolicy::kPowerOfTwo, 256),
            (std::vector<int>{1, 2, 4, 8, 16, 32, 64, 128, 256}));
  EXPECT_EQ(allowed_micro_batch_sizes(BatchSizePolicy::kPowerOfTwo, 100),
            (std::vector<int>{1, 2, 4, 8, 16, 32, 64, 100}));
  EXPECT_EQ(allowed_micro_batch_sizes(BatchSizePolicy::kPowerOfTwo, 3),
            (std::vector<int>{1, 2, 3}));
}

TEST(AllowedMicroBatchSizes, UndividedIsTheBatchOnly) {
  EXPECT_EQ(allowed_micro_batch_sizes(BatchSizePolicy::kUndivided, 100), (std::vector<int>{100}));
}

TEST(AllowedMicroBatchSizes, BatchOfOneAllowsOnlyOne) {
  for (BatchSizePolicy policy :
       {BatchSizePolicy::kAll, BatchSizePolicy::kPowerOfTwo, BatchSizePolicy::kUndivided}) {
    EXPECT_EQ(allowed_micro_batch_sizes(policy, 1), (std::vector<int>{1})) << to_string(policy);
    EXPECT_TRUE(allowed_micro_batch_sizes(policy, 0).empty()) << to_string(policy);
  }
}

TEST(AllowedMicroBatchSizes, AreAscendingUniqueAndEndAtTheBatch) {
  for (BatchSizePolicy policy :
       {BatchSizePolicy::kAll, BatchSizePolicy::kPowerOfTwo, BatchSizePolicy::kUndivided}) {
    for (int batch = 1; batch <= 300; ++batch) {
      const auto sizes = allowed_micro_batch_sizes(policy, batch);
      ASSERT_FALSE(sizes.empty());
      EXPECT_EQ(sizes.back(), batch);
      EXPECT_GE(sizes.front(), 1);
      EXPECT_TRUE(std::adjacent_find(sizes.begin(), sizes.end(), std::greater_equal<int>()) ==
                  sizes.end())
          << to_string(policy) << " batch " << batch;
    }
  }
}

}  // namespace
}  // namespace ucudnn

namespace ucudnn {
namespace {

TEST(AlignedMicroBatchSizes, KeepOnlySizesThatStartEveryMicroBatchAligned) {
  // AlexNet conv1's input: 3 x 227 x 227 floats = 618348 bytes per sample, 12 mod 16; its
  // output 96 x 55 x 55 floats is a multiple of 16. Only multiples of 4 samples stay aligned.
  const std::vector<int> all = allowed_micro_batch_sizes(BatchSizePolicy::kAll, 10);
  EXPECT_EQ(aligned_micro_batch_sizes(all, 10, {618348, 1161600}, 16), (std::vector<int>{4, 8, 10}));
  // Every size of an aligned layer stays.
  EXPECT_EQ(aligned_micro_batch_sizes(all, 10, {173056, 259584}, 16), all);
  // The full batch always stays, even when nothing else does.
  EXPECT_EQ(aligned_micro_batch_sizes({1, 2, 3}, 3, {7}, 16), (std::vector<int>{3}));
}

}  // namespace
}  // namespace ucudnn
