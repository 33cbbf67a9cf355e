import FuzzSupport

/// One input through the cache entry, failed-URL and statistics record parsers.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    CacheRecordInputs.exercise(fuzzBytes(data, size))
    return 0
}

/// The entry point SwiftPM links as `main`; libFuzzer's driver takes over.
@_cdecl("FuzzCacheRecord_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv)
}
