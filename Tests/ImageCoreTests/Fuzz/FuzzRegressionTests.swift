import Foundation
import Testing

@testable import ImageCore

/// Replays every input kept under `Fixtures/fuzz/<Target>/` (a seed per fuzz
/// target, and every crasher found, named `crash-<what>`) through the same
/// calls the libFuzzer target makes. Those calls are not copied here: the
/// files beside this one are symlinks to `Fuzz/Sources/FuzzSupport/`, so the
/// replay cannot drift from the fuzzers. A regression traps, which fails the
/// run; a clean rejection must be an `.image` `ImageCoreError` (checked there).
struct FuzzRegressionTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/fuzz")

    /// "<Target>/<file>" for every kept input.
    static let inputs: [String] = {
        let manager = FileManager.default
        let targets = (try? manager.contentsOfDirectory(atPath: directory.path)) ?? []
        return targets.sorted().flatMap { target in
            ((try? manager.contentsOfDirectory(atPath: directory.appendingPathComponent(target).path)) ?? [])
                .sorted().map { "\(target)/\($0)" }
        }
    }()

    @Test func everyFuzzTargetHasAFixture() {
        let targets = Set(Self.inputs.map { $0.split(separator: "/")[0] })
        #expect(
            targets == [
                "FuzzJPEG", "FuzzPNG", "FuzzGIF", "FuzzWebP", "FuzzAVIF", "FuzzJXL", "FuzzHEIF",
                "FuzzAPNG",
                "FuzzCacheRecord", "FuzzArguments",
            ])
    }

    @Test(arguments: inputs)
    func replays(input: String) throws {
        let bytes = try [UInt8](Data(contentsOf: Self.directory.appendingPathComponent(input)))
        switch input.split(separator: "/")[0] {
        case "FuzzJPEG": ImageInputs.exercise(bytes, as: .jpeg)
        case "FuzzPNG": ImageInputs.exercise(bytes, as: .png)
        case "FuzzGIF": ImageInputs.exercise(bytes, as: .gif)
        case "FuzzWebP": ImageInputs.exercise(bytes, as: .webp)
        case "FuzzAVIF": ImageInputs.exercise(bytes, as: .avif)
        case "FuzzJXL": ImageInputs.exercise(bytes, as: .jxl)
        case "FuzzHEIF": ImageInputs.exercise(bytes, as: .heif)
        case "FuzzAPNG": ImageInputs.exercise(bytes, as: .png)
        case "FuzzCacheRecord": CacheRecordInputs.exercise(bytes)
        case "FuzzArguments": ArgumentInputs.exercise(bytes)
        default: Issue.record("\(input): no fuzz target of that name")
        }
    }
}
