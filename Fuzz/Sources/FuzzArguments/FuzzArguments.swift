import FuzzSupport

/// One input through the size, duration, URL-key, Cache-Control and HTTP date parsers.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    ArgumentInputs.exercise(fuzzBytes(data, size))
    return 0
}

/// The entry point SwiftPM links as `main`; libFuzzer's driver takes over.
@_cdecl("FuzzArguments_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv)
}
