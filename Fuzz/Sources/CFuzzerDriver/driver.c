#include "CFuzzerDriver.h"

#include <stddef.h>
#include <stdint.h>

// Both come from the link: libFuzzer (via -sanitize=fuzzer) and the target's
// @_cdecl("LLVMFuzzerTestOneInput").
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int imgcache_fuzzer_main(int argc, char **argv) {
    return LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput);
}
