//===- ProgressTest.cpp - the progress line's text and its terminal form --===//

#include "tilec/Support/Progress.h"

#include <gtest/gtest.h>

using namespace tilec::support;

namespace {

TEST(Progress, Text) {
  EXPECT_EQ(progressText("tilec-run", "program", 1200, 4096),
            "tilec-run: program 1200 of 4096 (29%)");
  EXPECT_EQ(progressText("tilec-run", "program", 4095, 4096),
            "tilec-run: program 4095 of 4096 (99%)");
  EXPECT_EQ(progressText("tilec-run", "program", 4096, 4096),
            "tilec-run: program 4096 of 4096 (100%)");
  EXPECT_EQ(progressText("tilec-analyze", "evaluation", 12, 0,
                         "9000 of 65536 programs counted"),
            "tilec-analyze: evaluation 12, 9000 of 65536 programs counted");
  // No overflow on counts near 2^64.
  EXPECT_EQ(progressText("t", "x", UINT64_MAX / 2, UINT64_MAX),
            "t: x 9223372036854775807 of 18446744073709551615 (49%)");
}

/// What a line writes into a file, as a string.
std::string written(std::FILE *f) {
  std::fflush(f);
  std::rewind(f);
  std::string s;
  for (int c; (c = std::fgetc(f)) != EOF;)
    s += char(c);
  return s;
}

TEST(Progress, RewritesOneLineAndErasesIt) {
  std::FILE *f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    ProgressLine line("tilec-run", /*enabled=*/true,
                      std::chrono::milliseconds(0),
                      std::chrono::milliseconds(0), f);
    line.update("program", 10, 100);
    line.update("program", 9, 10);
  } // the destructor erases it (the text: the padding is blank already)
  EXPECT_EQ(written(f), "\rtilec-run: program 10 of 100 (10%)"
                        "\rtilec-run: program 9 of 10 (90%)  "
                        "\r" + std::string(32, ' ') + "\r");
  std::fclose(f);
}

TEST(Progress, QuietWhenDisabledOrEarly) {
  std::FILE *f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    ProgressLine off("tilec-run", /*enabled=*/false,
                     std::chrono::milliseconds(0),
                     std::chrono::milliseconds(0), f);
    off.update("program", 1, 2);
    // Short work: nothing before the delay.
    ProgressLine early("tilec-run", /*enabled=*/true,
                       std::chrono::milliseconds(0), std::chrono::hours(1), f);
    early.update("program", 1, 2);
  }
  EXPECT_EQ(written(f), "");
  std::fclose(f);
}

} // namespace
