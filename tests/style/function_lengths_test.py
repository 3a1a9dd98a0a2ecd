#!/usr/bin/env python3
"""scripts/function_lengths.py against hand-counted functions (CTest style.function_lengths_parser):
lambdas and blocks count towards their function, braces in comments, strings and raw strings do
not, classes, namespaces and brace initialisers are not functions, member functions are."""
import importlib.util
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("function_lengths", os.path.join(HERE, "..", "..", "scripts", "function_lengths.py"))
function_lengths = importlib.util.module_from_spec(spec)
spec.loader.exec_module(function_lengths)

SOURCE = r'''#include <vector>
#define BRACE {
namespace outer {
struct Point { int x = 0, y{1}; };        // a struct, not a function
const std::vector<int> kList = {1, 2, 3};  // an initialiser
int three_lines(int a) {
  return a + 1;
}
class Box {
 public:
  Box() : size_{2} {
    // a comment with a brace {
    const char* text = "}}}";
    auto twice = [](int v) {
      return 2 * v;
    };
    size_ = twice(size_);
  }
  int size() const { return size_; }
 private:
  int size_;
};
const char* raw() {
  return R"x( } { )x";
}
}  // namespace outer
'''

EXPECTED = {("three_lines", 6): 3, ("Box", 11): 8, ("size", 19): 1, ("raw", 23): 3}


def main():
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "sample.cpp")
        with open(path, "w") as f:
            f.write(SOURCE)
        found = {(name, line): lines for lines, name, line in function_lengths.functions(path)}
    if found != EXPECTED:
        print(f"function_lengths_test.py: FAIL: found {sorted(found.items())}, expected {sorted(EXPECTED.items())}")
        return 1
    print("function_lengths_test.py: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
