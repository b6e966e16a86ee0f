#include <bgtask/exec/admitted_handles.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

using bgtask::AdmittedHandles;
using bgtask::parse_supervise_words;
using bgtask::supervise_words;

TEST(AdmittedHandles, WordsReadBackAsTheHandlesTheyCameFrom)
{
  AdmittedHandles plain;
  plain.id = "2p71sppjr08s";
  plain.lock_fd = 7;
  const auto read = parse_supervise_words(supervise_words(plain));
  ASSERT_TRUE(read) << read.error();
  EXPECT_EQ(read->id, plain.id);
  EXPECT_EQ(read->lock_fd, 7);
  EXPECT_FALSE(read->slot_fd);

  AdmittedHandles slotted = plain;
  slotted.slot_fd = 9;
  slotted.slot_index = 3;
  const auto words = supervise_words(slotted);
  EXPECT_EQ(words, (std::vector<std::string>{"2p71sppjr08s", "7", "9", "3"}));
  const auto back = parse_supervise_words(words);
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(back->slot_fd, 9);
  EXPECT_EQ(back->slot_index, 3U);
}

TEST(AdmittedHandles, RefusesWhatNoHandOffWrites)
{
  const std::vector<std::vector<std::string>> bad{
    {},
    {"2p71sppjr08s"},
    {"2p71sppjr08s", "7", "9"},
    {"not-an-id", "7"},
    {"2p71sppjr08s", "1"},  // a standard stream
    {"2p71sppjr08s", "7x"}, // trailing text
    {"2p71sppjr08s", "-7"},
    {"2p71sppjr08s", "7", "7", "0"}, // one descriptor for both
    {"2p71sppjr08s", "7", "9", "-1"},
  };
  for (const auto& words : bad) {
    const auto read = parse_supervise_words(words);
    EXPECT_FALSE(read) << "accepted " << words.size() << " words";
    if (!read) {
      EXPECT_FALSE(read.error().empty());
    }
  }
}
