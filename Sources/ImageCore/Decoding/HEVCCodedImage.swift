/// The coded side of a HEIC thumbnail made by libde265 (`HEVCThumbnail`):
/// an item's HEVC data as the file holds it, and the two headers read
/// before anything is decoded, `hvcC` and a sequence parameter set.
extension HEVCThumbnail {
    /// One coded HEVC image: its decoder configuration's parameter sets
    /// (`hvcC`: VPS, SPS, PPS) and its data's byte ranges in the file, a
    /// sequence of NAL units each behind a `lengthSize`-byte length.
    struct CodedImage {
        var parameterSets: [ArraySlice<UInt8>]
        var lengthSize: Int
        var data: [Range<Int>]
        var width: Int
        var height: Int
        /// The item's own `colr` nclx: matrix coefficients and full range, if it has one.
        var colour: (matrix: Int, fullRange: Bool)?

        /// The bytes of the file `data` covers, counted again where extents repeat.
        var codedBytes: Int { data.reduce(0) { $0 + $1.count } }

        /// Whether every sequence parameter set, in `hvcC` or among the
        /// data's NAL units, codes a picture of about the `ispe` size the
        /// limits checked: libde265 allocates the SPS's size, which nothing
        /// else bounds (up to 2²¹ × 2²¹), and only after decoding would the
        /// layout check see it differ. The coded size may exceed `ispe` by
        /// less than a 64-sample block (padding a conformance window crops).
        func sequencesFit(_ bytes: [UInt8]) -> Bool {
            func fits(_ unit: ArraySlice<UInt8>) -> Bool {
                guard unit.count >= 2, (unit[unit.startIndex] >> 1) & 0x3F == 33 else { return true }
                guard let size = HEVCThumbnail.pictureSize(sequenceParameterSet: unit) else { return false }
                return size.width < width + 64 && size.height < height + 64
            }
            guard parameterSets.allSatisfy(fits) else { return false }
            guard let units = units(in: bytes) else { return true }  // the decode refuses it
            return units.allSatisfy { fits(bytes[$0]) }
        }

        /// The data's NAL units, each a range of `bytes` without its length
        /// field, in order; nil if a length field or a unit runs past its extent.
        func units(in bytes: [UInt8]) -> [Range<Int>]? {
            var units: [Range<Int>] = []
            for range in data {
                var index = range.lowerBound
                while index < range.upperBound {
                    guard lengthSize <= range.upperBound - index else { return nil }
                    let length = Int(ISOBoxes.readUInt(bytes[...], at: index, bytes: lengthSize))
                    index += lengthSize
                    guard length <= range.upperBound - index else { return nil }
                    units.append(index..<(index + length))
                    index += length
                }
            }
            return units
        }
    }

    /// `pic_width_in_luma_samples` and `pic_height_in_luma_samples` of a
    /// sequence parameter set NAL unit (H.265 7.3.2.2, after its
    /// profile_tier_level), emulation prevention bytes removed; nil if it
    /// ends first.
    static func pictureSize(sequenceParameterSet unit: ArraySlice<UInt8>) -> (width: Int, height: Int)? {
        // The first 2 + 15 + 2 × 7 × 12 bytes of payload hold every field read here, at most.
        var payload: [UInt8] = []
        var zeros = 0
        for byte in unit.dropFirst(2).prefix(256) {
            if zeros >= 2 && byte == 3 {
                zeros = 0
                continue
            }
            zeros = byte == 0 ? zeros + 1 : 0
            payload.append(byte)
        }
        var bit = 0
        func read(_ count: Int) -> Int? {
            guard bit + count <= payload.count * 8 else { return nil }
            var value = 0
            for _ in 0..<count {
                value = value << 1 | Int(payload[bit >> 3] >> (7 - UInt8(bit & 7)) & 1)
                bit += 1
            }
            return value
        }
        func golomb() -> Int? {
            var zeros = 0
            while true {
                guard let flag = read(1), zeros <= 31 else { return nil }
                if flag == 1 { break }
                zeros += 1
            }
            return read(zeros).map { (1 << zeros) - 1 + $0 }
        }
        guard read(4) != nil, let subLayers = read(3), read(1) != nil, read(96) != nil else { return nil }
        var present: [(profile: Bool, level: Bool)] = []
        for _ in 0..<subLayers {
            guard let flags = read(2) else { return nil }
            present.append((flags & 2 != 0, flags & 1 != 0))
        }
        if subLayers > 0 { guard read(2 * (8 - subLayers)) != nil else { return nil } }
        for layer in present {
            guard read(layer.profile ? 88 : 0) != nil, read(layer.level ? 8 : 0) != nil else { return nil }
        }
        guard golomb() != nil, let chroma = golomb() else { return nil }
        if chroma == 3 { guard read(1) != nil else { return nil } }
        guard let width = golomb(), let height = golomb() else { return nil }
        return (width, height)
    }

    /// An `hvcC` box's NAL units and length size, if it declares 8-bit
    /// samples, 4:2:0 or 4:4:4 (libheif 1.15's 4:2:2 conversion gives other
    /// pixels than a conversion of the averaged planes: up to 16 apart).
    static func parseConfiguration(_ hvcC: ArraySlice<UInt8>) -> ([ArraySlice<UInt8>], Int)? {
        guard hvcC.count >= 23 else { return nil }
        let base = hvcC.startIndex
        let chroma = hvcC[base + 16] & 3, lumaBits = hvcC[base + 17] & 7, chromaBits = hvcC[base + 18] & 7
        guard chroma == 1 || chroma == 3, lumaBits == 0, chromaBits == 0 else { return nil }
        var units: [ArraySlice<UInt8>] = []
        var index = base + 23
        for _ in 0..<hvcC[base + 22] {
            guard index + 3 <= hvcC.endIndex else { return nil }
            let count = Int(ISOBoxes.readUInt(hvcC, at: index + 1, bytes: 2))
            index += 3
            for _ in 0..<count {
                guard index + 2 <= hvcC.endIndex else { return nil }
                let length = Int(ISOBoxes.readUInt(hvcC, at: index, bytes: 2))
                guard index + 2 + length <= hvcC.endIndex else { return nil }
                units.append(hvcC[(index + 2)..<(index + 2 + length)])
                index += 2 + length
            }
        }
        return (units, Int(hvcC[base + 21] & 3) + 1)
    }
}
