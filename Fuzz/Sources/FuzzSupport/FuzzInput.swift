internal import CFuzzerDriver

/// The bytes libFuzzer hands to `LLVMFuzzerTestOneInput`, as the `[UInt8]`
/// every ImageCore entry point takes.
public func fuzzBytes(_ data: UnsafePointer<UInt8>, _ size: Int) -> [UInt8] {
    Array(UnsafeBufferPointer(start: data, count: size))
}

/// Hands the process to libFuzzer's driver. SwiftPM links each executable
/// with `--defsym main=<Target>_main`, so each target defines that symbol
/// and calls this; libFuzzer then calls the target's `LLVMFuzzerTestOneInput`.
public func runFuzzer(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    imgcache_fuzzer_main(argc, argv)
}
