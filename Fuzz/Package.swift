// swift-tools-version:6.0
import PackageDescription

/// libFuzzer targets for ImageCore, kept out of the root package so its
/// `swift build` and `swift test` never see executables without a `main`.
/// Build only through `scripts/fuzz.sh`, which adds `-sanitize=fuzzer,address`
/// (libFuzzer supplies `main`) and a debug configuration (`-enable-testing`,
/// so `@testable import ImageCore` reaches the internal decoders and parsers).
let package = Package(
    name: "ImageCoreFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: "..")],
    targets: [
        .target(name: "CFuzzerDriver"),
        .target(name: "FuzzSupport", dependencies: ["CFuzzerDriver", .product(name: "ImageCore", package: rootIdentity)]),
    ] + ["FuzzJPEG", "FuzzPNG", "FuzzGIF", "FuzzWebP", "FuzzAVIF", "FuzzJXL", "FuzzHEIF", "FuzzAPNG", "FuzzCacheRecord", "FuzzArguments"].map { name in
        .executableTarget(name: name, dependencies: ["FuzzSupport"])
    },
    swiftLanguageModes: [.v6]
)

/// A path dependency is named after its directory (lowercased), which is
/// whatever the checkout is called: read it rather than assume it.
var rootIdentity: String {
    let parent = Context.packageDirectory.split(separator: "/").dropLast().last.map(String.init) ?? "main"
    return parent.lowercased()
}
