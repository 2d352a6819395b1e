// ilmap.hpp under C++11: hpp-cxx11-test.py expects exactly one error,
// the header's own #error, not a cascade.
#include "ilmap.hpp"

int main() { return 0; }
