#pragma once

/// Runs libFuzzer's driver on this process's `LLVMFuzzerTestOneInput`.
/// Why: SwiftPM links every executable with `--defsym main=<Target>_main`,
/// so libFuzzer's own `main` is never the entry point; each target's
/// `<Target>_main` calls this instead.
int imgcache_fuzzer_main(int argc, char **argv);
