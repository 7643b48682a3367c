// This file includes Eigen's Core module for CPU kernel translation units.
// Include it only from .cc files and kernel-template headers, never from a
// public header: it changes warning settings for the rest of the TU.
#pragma once

// GCC 12's avx512fintrin.h/avxintrin.h initialize "undefined" vectors with
// themselves, which -Wuninitialized/-Wmaybe-uninitialized flag once Eigen's
// packet code is inlined (GCC bug 105593, fixed in GCC 13). The warning is
// raised where the inlined code lands, so a push/pop around the include
// does not help; it is silenced for the whole TU instead.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ == 12
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

#include <Eigen/Core>
