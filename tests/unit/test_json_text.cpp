#include <bgtask/util/json_text.hpp>

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace json = boost::json;

TEST(JsonText, WritesFractionsInPlainDecimal)
{
  EXPECT_EQ(bgtask::json_text(json::value(0.504)), "0.504");
  EXPECT_EQ(bgtask::json_text(json::value(60.01)), "60.01");
  EXPECT_EQ(bgtask::json_text(json::value(60.0)), "60.0");
  EXPECT_EQ(bgtask::json_text(json::value(-0.001)), "-0.001");
}

TEST(JsonText, KeepsAnExponentForExtremeMagnitudes)
{
  const std::string text = bgtask::json_text(json::value(1e300));
  EXPECT_NE(text.find('e'), std::string::npos) << text;
  EXPECT_EQ(json::parse(text).as_double(), 1e300);
}

TEST(JsonText, ReadsBackAsTheSameDocument)
{
  const json::value document = json::parse(
    R"({"a":[1,-2,18446744073709551615,0.1,true,null,"q\"\n\u0001"],"b":{"c":2.5e-5}})");
  const std::string text = bgtask::json_text(document);
  EXPECT_EQ(json::parse(text), document) << text;
  EXPECT_EQ(text.find('E'), std::string::npos) << text;
  EXPECT_NE(text.find("0.000025"), std::string::npos) << text;
}
