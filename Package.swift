// swift-tools-version:6.0
import PackageDescription

/// System libraries come from Debian's -dev packages (see `make deps`); each one
/// is a `[system]` module map with a one-line header, so no C type leaks past
/// the thin Swift wrapper that owns it.
let package = Package(
    name: "imgcache",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "imgcache", targets: ["imgcache"]),
        .library(name: "ImageCore", targets: ["ImageCore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2")
    ],
    targets: [
        .systemLibrary(name: "CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // libjpeg, libpng, giflib, libwebp, hiredis and zlib are not linked
        // either: CImageCoreShims defines the functions used under their own
        // names and loads each library on first use (library_loader.h), so a
        // warm cache hit loads none of them. Hence no pkgConfig here: it
        // would add -l flags; Debian's and Ubuntu's headers are all on the
        // default include path.
        .systemLibrary(name: "CJPEG", providers: [.apt(["libjpeg62-turbo-dev"])]),
        .systemLibrary(name: "CPNG", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CGIF", providers: [.apt(["libgif-dev"])]),
        .systemLibrary(name: "CWebP", providers: [.apt(["libwebp-dev"])]),
        .systemLibrary(name: "CHiredis", providers: [.apt(["libhiredis-dev"])]),
        .systemLibrary(name: "CAVIF", providers: [.apt(["libavif-dev"])]),
        .systemLibrary(name: "CJXL", providers: [.apt(["libjxl-dev"])]),
        .systemLibrary(name: "CHEIF", providers: [.apt(["libheif-dev"])]),
        // Links only Nettle (nettle-dev), for SHA-256: a warm hit names its
        // file with it. Statically (-l:libnettle.a): as a shared library its
        // load and 465 symbol bindings cost every start more than the three
        // functions used. xxHash (libxxhash-dev) is header-only; every other
        // C library is loaded on first use (library_loader.h).
        .target(
            name: "CImageCoreShims",
            dependencies: ["CCurl", "CPNG", "CJPEG", "CGIF", "CWebP", "CHiredis", "CAVIF", "CJXL", "CHEIF"],
            linkerSettings: [.linkedLibrary(":libnettle.a")]),
        .target(
            name: "ImageCore",
            dependencies: [
                "CCurl", "CPNG", "CGIF", "CWebP", "CAVIF", "CJXL", "CHEIF", "CImageCoreShims", "CHiredis",
            ],
            swiftSettings: strictSwift
        ),
        // The command line as glibc hands it to the executable, in place of
        // the Swift runtime's search of /proc/self/maps at every start
        // (process_arguments.c).
        .target(name: "CProcessArguments"),
        .executableTarget(
            name: "imgcache",
            dependencies: [
                "ImageCore", "CProcessArguments", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSwift
        ),
        // What both test targets share: the loopback HTTP server, the process
        // runner, fixture images and the suite fixture. A regular target, so
        // each test target imports it instead of copying or linking files.
        .target(
            name: "TestSupport",
            dependencies: ["ImageCore"],
            path: "Tests/TestSupport",
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "ImageCoreTests",
            dependencies: ["ImageCore", "TestSupport"],
            exclude: ["Fixtures"],
            swiftSettings: strictSwift
        ),
        // The command line: argument parsing through `parseAsRoot`, and the
        // built binary against the loopback server.
        .testTarget(
            name: "imgcacheTests",
            dependencies: [
                "imgcache", "ImageCore", "TestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSwift
        ),
    ],
    swiftLanguageModes: [.v6]
)

/// Swift 6 mode already implies complete concurrency checking; these make the
/// rest of the compiler's advice binding too. `make test` (and so CI) sets
/// IMGCACHE_WARNINGS_AS_ERRORS: a warning in our own targets fails the build
/// there, while dependencies keep their warnings.
var strictSwift: [SwiftSetting] {
    var settings: [SwiftSetting] = [
        .enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("InternalImportsByDefault"),
    ]
    if Context.environment["IMGCACHE_WARNINGS_AS_ERRORS"] != nil {
        settings.append(.unsafeFlags(["-warnings-as-errors"]))
    }
    return settings
}
