import FuzzSupport

/// One input through the sniffer and the HEIF decoder (libheif)'s entry points.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    ImageInputs.exercise(fuzzBytes(data, size), as: .heif)
    return 0
}

/// The entry point SwiftPM links as `main`; libFuzzer's driver takes over.
@_cdecl("FuzzHEIF_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv)
}
