// ilmap.hpp alone, as C++17 with -Wall -Wextra -pedantic -Werror (built
// with exceptions and without).
#include "ilmap.hpp"

using ilmap_headers_test_map = ilmap_cpp::map;
using ilmap_headers_test_sig = ilmap_cpp::sig;
using ilmap_headers_test_result = ilmap_cpp::result<ilmap_cpp::map>;
