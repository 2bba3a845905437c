// ask_yes_no(); see prompt.hpp.
#include "platform/prompt.hpp"

#include <cstdio>
#include <iostream>

namespace amdml::platform {

bool ask_yes_no(const std::string& question) {
  std::fprintf(stderr, "%s [y/N] ", question.c_str());
  std::fflush(stderr);
  std::string answer;
  if (!std::getline(std::cin, answer)) return false;
  return answer == "y" || answer == "Y" || answer == "yes" || answer == "YES" || answer == "Yes";
}

}  // namespace amdml::platform
