import FuzzSupport

/// One input through the sniffer and the PNG decoder's entry points, seeded
/// with animated PNGs so the acTL/fcTL/fdAT walk and the compositor are reached.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    ImageInputs.exercise(fuzzBytes(data, size), as: .png)
    return 0
}

/// The entry point SwiftPM links as `main`; libFuzzer's driver takes over.
@_cdecl("FuzzAPNG_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv)
}
