// This file defines the -finstrument-functions hooks that record.sh preloads
// into the instrumented build: each function's address at its first call,
// in order, written at exit to $EMBER_TEXT_LAYOUT_RECORD (Note [Text layout]
// in cmake/text_layout.ld).
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS (1u << 20)  // more than the extension's functions; a full table stops recording

static uintptr_t seen[SLOTS];   // open addressing: 0 is empty
static uintptr_t order[SLOTS];  // first calls in order; 1 marks a phase boundary
static unsigned long count;

#define NO_HOOK __attribute__((no_instrument_function))

NO_HOOK static void append(uintptr_t value) {
  unsigned long i = __atomic_fetch_add(&count, 1, __ATOMIC_RELAXED);
  if (i < SLOTS) order[i] = value;
}

NO_HOOK void __cyg_profile_func_enter(void *fn, void *call_site) {
  (void)call_site;
  uintptr_t address = (uintptr_t)fn;
  unsigned slot = (unsigned)((address * 0x9E3779B97F4A7C15ull) >> 44) & (SLOTS - 1);
  for (unsigned probes = 0; probes < SLOTS; ++probes, slot = (slot + 1) & (SLOTS - 1)) {
    uintptr_t expected = 0;
    if (__atomic_compare_exchange_n(&seen[slot], &expected, address, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
      append(address);  // the first thread to claim the slot records the call
      return;
    }
    if (expected == address) return;
  }
}

NO_HOOK void __cyg_profile_func_exit(void *fn, void *call_site) {
  (void)fn;
  (void)call_site;
}

// workload.py calls this (through ctypes) between its phases.
NO_HOOK void ember_text_layout_mark(void) { append(1); }

// The extension's mappings (the first, at offset 0, gives its base), then
// the addresses; write_script.py reads this.
NO_HOOK __attribute__((destructor)) static void write_record(void) {
  const char *path = getenv("EMBER_TEXT_LAYOUT_RECORD");
  if (path == NULL) return;
  FILE *out = fopen(path, "w");
  FILE *maps = fopen("/proc/self/maps", "r");
  if (out == NULL || maps == NULL) return;
  char line[4096];
  while (fgets(line, sizeof line, maps)) {
    if (strstr(line, "/ember/_C.")) fprintf(out, "MAP %s", line);
  }
  fclose(maps);
  unsigned long n = count < SLOTS ? count : SLOTS;
  for (unsigned long i = 0; i < n; ++i) {
    if (order[i] == 1) {
      fprintf(out, "MARK\n");
    } else {
      fprintf(out, "%lx\n", (unsigned long)order[i]);
    }
  }
  fclose(out);
}
