// This file defines the marks of code that runs once, while `_C` is
// imported: kernel registration (Note [Startup code]).
#pragma once

// Note [Startup code]
// Importing `_C` registers every kernel: about 110 Register*Kernels
// functions and the RegisterForTypes-style templates they instantiate. Each
// is compiled in its kernel family's translation unit, so by default it
// sits next to that family's kernels, and the import ran code in ~70
// places of the 10 MB text. The kernel maps up to 64 KiB around each page
// of a shared library it faults in ("fault-around"), so registration alone
// made ~4 MiB of the extension resident in every process, kernels it never
// runs included.
//  - EMBER_STARTUP_CODE puts a function in .text.startup.ember, which the
//    linker's default script gathers with the static constructors'
//    .text.startup at the front of .text.
//  - GCC ignores a section on a function template's instantiations, so the
//    registration templates are EMBER_STARTUP_TEMPLATE instead: always
//    inlined into the marked function that calls them.
// test_memory_footprint.py bounds the extension's resident text after
// import. The extension also links with packed relative relocations
// (-z pack-relative-relocs, CMakeLists.txt) where the toolchain has them:
// the loader then reads 3 KB of relocations, not 420 KB.
#if defined(__GNUC__) && defined(__ELF__)
#define EMBER_STARTUP_CODE __attribute__((section(".text.startup.ember")))
#define EMBER_STARTUP_TEMPLATE __attribute__((always_inline)) inline
#else
#define EMBER_STARTUP_CODE
#define EMBER_STARTUP_TEMPLATE inline
#endif
