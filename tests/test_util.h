// tests/test_util.h — small helpers shared by the test files.
#pragma once
#include <boost/test/unit_test.hpp>

#include <exception>
#include <functional>
#include <string>
#include <vector>

namespace d2l_test {

// A predicate for BOOST_CHECK_EXCEPTION(expr, E, message_has({...})): true when the
// exception's message contains every one of `parts`; the missing part is logged.
inline std::function<bool(const std::exception&)> message_has(std::vector<std::string> parts) {
  return [parts](const std::exception& e) {
    const std::string msg = e.what();
    BOOST_TEST_MESSAGE(msg);
    for (const std::string& p : parts)
      if (msg.find(p) == std::string::npos) {
        BOOST_TEST_MESSAGE("missing '" << p << "' in: " << msg);
        return false;
      }
    return true;
  };
}

}  // namespace d2l_test
