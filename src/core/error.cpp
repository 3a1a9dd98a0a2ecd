// wobble::Error is header-only; this unit keeps the library's list of sources uniform.
#include <wobble/error.hpp>
