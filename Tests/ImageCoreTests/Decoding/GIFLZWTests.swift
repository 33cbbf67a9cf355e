import Foundation
import TestSupport
import Testing

@testable import ImageCore

/// `GIFLZW`, the LZW decoding of a GIF frame: strings copied from where
/// they were first written give what giflib's prefix chains give
/// (`decodeAsGiflib`, its algorithm line for line), on the corpus's frames
/// and on streams with bytes changed, and the hand-made streams below.
struct GIFLZWTests {
    /// One frame's LZW data: the minimum code size, the sub-blocks joined, the pixel count.
    struct Frame {
        var codeSize: Int
        var data: [UInt8]
        var count: Int
    }

    /// Each frame of a GIF, by a walk over its blocks.
    static func frames(_ bytes: [UInt8]) -> [Frame] {
        var offset = 13
        if bytes[10] & 0x80 != 0 { offset += 3 << (Int(bytes[10] & 7) + 1) }
        var frames: [Frame] = []
        func subBlocks() -> [UInt8] {
            var data: [UInt8] = []
            while bytes[offset] != 0 {
                let length = Int(bytes[offset])
                data += bytes[(offset + 1)..<(offset + 1 + length)]
                offset += 1 + length
            }
            offset += 1
            return data
        }
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x2C:
                let width = Int(bytes[offset + 5]) | Int(bytes[offset + 6]) << 8
                let height = Int(bytes[offset + 7]) | Int(bytes[offset + 8]) << 8
                let flags = bytes[offset + 9]
                offset += 10
                if flags & 0x80 != 0 { offset += 3 << (Int(flags & 7) + 1) }
                let codeSize = Int(bytes[offset])
                offset += 1
                frames.append(Frame(codeSize: codeSize, data: subBlocks(), count: width * height))
            case 0x21:
                offset += 2
                _ = subBlocks()
            default:
                return frames
            }
        }
        return frames
    }

    /// Both decodings of `frame`: the indices, or the failure.
    static func decodings(
        _ frame: Frame
    ) -> (copying: Result<[UInt8], GIFLZW.Failure>, giflib: Result<[UInt8], GIFLZW.Failure>) {
        func run(
            _ body: (UnsafeBufferPointer<UInt8>, UnsafeMutablePointer<UInt8>) throws(GIFLZW.Failure) -> Void
        )
            -> Result<[UInt8], GIFLZW.Failure>
        {
            var output = [UInt8](repeating: 0, count: frame.count + 8)
            do throws(GIFLZW.Failure) {
                try frame.data.withUnsafeBufferPointer { data throws(GIFLZW.Failure) in
                    try output.withUnsafeMutableBufferPointer { output throws(GIFLZW.Failure) in
                        try body(data, output.baseAddress!)
                    }
                }
            } catch {
                return .failure(error)
            }
            return .success(Array(output.prefix(frame.count)))
        }
        var lzw = GIFLZW()
        let copying = run { data, output throws(GIFLZW.Failure) in
            try lzw.decode(data, codeSize: frame.codeSize, into: output, count: frame.count)
        }
        let giflib = run { data, output throws(GIFLZW.Failure) in
            try GIFLZW.decodeAsGiflib(data, codeSize: frame.codeSize, into: output, count: frame.count)
        }
        return (copying, giflib)
    }

    /// Where two answers first differ (frames are too long to print whole), or nil.
    static func difference(_ a: Result<[UInt8], GIFLZW.Failure>, _ b: Result<[UInt8], GIFLZW.Failure>) -> String? {
        switch (a, b) {
        case (.success(let a), .success(let b)):
            guard let index = a.indices.first(where: { a[$0] != b[$0] }) else { return nil }
            return "index \(index) of \(a.count): \(a[index]) and \(b[index])"
        case (.failure(let a), .failure(let b)):
            return a == b ? nil : "\(a) and \(b)"
        default:
            return "\(String(describing: a).prefix(40)) and \(String(describing: b).prefix(40))"
        }
    }

    @Test(.enabled(if: Corpus.directory != nil, Corpus.missing), arguments: GIFStructureTests.files)
    func copyingGivesGiflibsIndices(file: String) throws {
        let frames = Self.frames(try Corpus.bytes("images/\(file)"))
        #expect(!frames.isEmpty)
        for frame in frames {
            let (copying, giflib) = Self.decodings(frame)
            #expect(Self.difference(copying, giflib) == nil)
        }
    }

    /// Changed bytes make codes past the table, codes before any string,
    /// early end codes and data that runs out: the same indices or the
    /// same failure either way.
    @Test(.enabled(if: Corpus.directory != nil, Corpus.missing), arguments: GIFStructureTests.files)
    func changedBytesGiveGiflibsAnswer(file: String) throws {
        var random = SplitMix(seed: 34)
        var outcomes: Set<String> = []
        for frame in Self.frames(try Corpus.bytes("images/\(file)")).prefix(4) where frame.data.count > 8 {
            for _ in 0..<30 {
                var changed = frame
                for _ in 0...(random.next() % 3) {
                    changed.data[Int(random.next() % UInt64(frame.data.count))] = UInt8(
                        truncatingIfNeeded: random.next())
                }
                let (copying, giflib) = Self.decodings(changed)
                #expect(Self.difference(copying, giflib) == nil)
                outcomes.insert("\(copying)".prefix(20).description)
            }
        }
        // The changes reached more than one kind of answer.
        #expect(outcomes.count > 1)
    }

    /// Code size 2 (clear 4, end 5, 3-bit codes), codes packed least significant bit first.
    static func stream(_ codes: [Int]) -> [UInt8] {
        var value = 0
        for (index, code) in codes.enumerated() { value |= code << (3 * index) }
        return (0..<(3 * codes.count + 7) / 8).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    @Test func handMadeStreams() {
        func decode(_ codes: [Int], count: Int) -> Result<[UInt8], GIFLZW.Failure> {
            let (copying, giflib) = Self.decodings(Frame(codeSize: 2, data: Self.stream(codes), count: count))
            #expect(Self.difference(copying, giflib) == nil)
            return copying
        }
        // The code about to be defined (6): the last string and its first byte.
        #expect(decode([4, 1, 6, 5], count: 3) == .success([1, 1, 1]))
        // A code past it (7): giflib's last string and the byte 2.
        #expect(decode([4, 1, 7, 5], count: 3) == .success([1, 1, 2]))
        // The end code before the last pixel, a string code before any, data that runs out.
        #expect(decode([4, 1, 5], count: 3) == .failure(.endTooSoon))
        #expect(decode([4, 6, 5], count: 3) == .failure(.defective))
        #expect(decode([4, 1], count: 3) == .failure(.defective))
        // A code size over 8 (giflib refuses it first): refused, never a code past the tables.
        for codeSize in [9, 12, 255] {
            let (copying, giflib) = Self.decodings(
                Frame(codeSize: codeSize, data: [UInt8](repeating: 0xFF, count: 64), count: 16))
            #expect(copying == .failure(.defective) && giflib == .failure(.defective), "code size \(codeSize)")
        }
    }
}

/// A frame of more than 2³¹ pixels (GIF allows 65535 × 65535, and
/// `--limit-pixels` may let it through): an entry defined past index 2³¹ is
/// copied from there, not from a place its start wrapped to.
struct GIFLZWLargeFrameTests {
    /// Codes of size 2 (clear 4, end 5) packed at the widths the decoder
    /// reads them, with the pixel count they decode to: zeros, each code
    /// `k` of 6...4095 the previous one's string and a zero (KwKwK), then
    /// the longest (4095) until past 2³¹ pixels, then a clear code, and the
    /// same again, whose entries start past 2³¹, and each entry read back.
    static func stream() -> (data: [UInt8], count: Int) {
        var data: [UInt8] = [], bits: UInt64 = 0, bitCount = 0
        var width = 3, widthLimit = 8, running = 6, count = 0
        func put(_ code: Int, pixels: Int) {
            bits |= UInt64(code) << UInt64(bitCount)
            bitCount += width
            while bitCount >= 8 {
                data.append(UInt8(truncatingIfNeeded: bits))
                bits >>= 8
                bitCount -= 8
            }
            if running < 4097 {
                running += 1
                if running > widthLimit && width < 12 {
                    widthLimit <<= 1
                    width += 1
                }
            }
            if code == 4 { (running, width, widthLimit) = (6, 3, 8) }
            count += pixels
        }
        func table(upTo last: Int) {
            put(0, pixels: 1)
            for code in 6...last { put(code, pixels: code - 4) }
        }
        table(upTo: 4095)
        while count <= 1 << 31 { put(4095, pixels: 4091) }
        put(4, pixels: 0)
        table(upTo: 40)
        for code in 6...40 { put(code, pixels: code - 4) }
        if bitCount > 0 { data.append(UInt8(truncatingIfNeeded: bits)) }
        return (data, count)
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["IMGCACHE_TEST_SANITIZER"] != "thread"))
    func entriesPastTwoToTheThirtyFirstAreCopiedFromThere() throws {
        let (data, count) = Self.stream()
        #expect(count > 1 << 31)
        let output = UnsafeMutableRawBufferPointer.allocate(byteCount: count + 8, alignment: 8)
        defer { output.deallocate() }
        // Ones where zeros are to be written: a copy from a wrong place shows.
        output.initializeMemory(as: UInt8.self, repeating: 1)
        var lzw = GIFLZW()
        try data.withUnsafeBufferPointer {
            try lzw.decode($0, codeSize: 2, into: output.baseAddress!.assumingMemoryBound(to: UInt8.self), count: count)
        }
        // The strings defined and read after the clear code (past 2³¹).
        let tail = UnsafeRawBufferPointer(rebasing: output[(count - 2000)..<count])
        #expect(tail.allSatisfy { $0 == 0 })
    }
}
