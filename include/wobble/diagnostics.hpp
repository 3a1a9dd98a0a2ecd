#pragma once
// Repairs made while reading messy files. Each kind is kept once, with how often it happened
// and the first example, so that a loader reports "weights normalised (1,203 vertices)" once
// rather than a warning per vertex.
#include <cstddef>
#include <string>
#include <vector>

namespace wobble {

struct Repair {
  std::string kind;     // stable identifier, e.g. "weights_normalized"
  std::string message;  // what was wrong and what was done, for the first occurrence
  std::size_t count = 0;
};

class Diagnostics {
 public:
  // Records one occurrence of a repair; the message is kept from the first one.
  void repair(const std::string& kind, const std::string& message, std::size_t count = 1);
  const std::vector<Repair>& repairs() const { return repairs_; }
  bool empty() const { return repairs_.empty(); }
  std::size_t count(const std::string& kind) const;
  // Logs each kind of repair once as a warning, prefixed by the source name.
  void log_warnings(const std::string& source) const;

 private:
  std::vector<Repair> repairs_;
};

}  // namespace wobble
