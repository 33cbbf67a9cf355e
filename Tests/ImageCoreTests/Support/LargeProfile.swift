/// A valid ICC profile made larger by a private tag: the same colours, in more bytes.
enum LargeProfile {
    static func make(from path: String, padding: Int) throws -> [UInt8] {
        let profile = try ProfiledImages.bytes(path)
        let count = Int(profile[128]) << 24 | Int(profile[129]) << 16 | Int(profile[130]) << 8 | Int(profile[131])
        func be(_ value: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
        var table: [UInt8] = be(count + 1)
        for tag in 0..<count {
            let entry = 132 + tag * 12
            let offset =
                Int(profile[entry + 4]) << 24 | Int(profile[entry + 5]) << 16 | Int(profile[entry + 6]) << 8
                | Int(profile[entry + 7])
            table += profile[entry..<(entry + 4)] + be(offset + 12) + profile[(entry + 8)..<(entry + 12)]
        }
        var data = Array(profile[(132 + count * 12)...])
        while data.count % 4 != 0 { data.append(0) }
        let newOffset = 128 + table.count + 12 + data.count
        table += Array("zzzz".utf8) + be(newOffset) + be(12 + padding)
        let tag =
            Array("data".utf8) + [0, 0, 0, 0] + [0, 0, 0, 1] + (0..<padding).map { UInt8(truncatingIfNeeded: $0) }
        var header = Array(profile.prefix(128))
        let total = 128 + table.count + data.count + tag.count
        header.replaceSubrange(0..<4, with: be(total))
        header.replaceSubrange(84..<100, with: [UInt8](repeating: 0, count: 16))  // no profile ID to check
        return header + table + data + tag
    }
}
