internal import CImageCoreShims

/// Finds the colour space an image file declares, reading only its headers
/// (no pixel data, no Little CMS): JPEG `APP2 ICC_PROFILE` segments in
/// sequence order, PNG `iCCP` (or `sRGB`, or `gAMA` with `cHRM`), WebP
/// `ICCP`, AVIF and HEIF `colr` (`prof`/`rICC`, else `nclx`). GIF has none.
enum EmbeddedProfile {
    /// What a file says about its colour space.
    enum Found {
        /// Nothing: the pixels are taken as sRGB.
        case none
        /// A profile to honour.
        case profile(ColourProfile)
        /// A profile that is damaged or cannot be used; why, for `-v`.
        case ignored(String)

        /// The profile, if one is usable.
        var profile: ColourProfile? {
            if case .profile(let profile) = self { return profile }
            return nil
        }
    }

    /// The largest profile read from a PNG's compressed `iCCP` (lcms and
    /// browsers refuse far smaller ones; the biggest real CMYK profiles are
    /// a few MB).
    static let maxProfileBytes = 16 << 20

    static func read(_ bytes: [UInt8], format: ImageFormat) -> Found {
        switch format {
        case .jpeg: jpeg(bytes)
        case .png: png(bytes)
        case .webp: webp(bytes)
        case .avif: avif(bytes)
        case .heif: heif(bytes)
        // A JPEG XL's profile is entropy-coded: libjxl reads it (Decoding/JXLColour).
        case .gif, .jxl: .none
        }
    }

    /// The data colour space of an ICC profile ("RGB", "CMYK", "GRAY", ...);
    /// nil for a colour space given by numbers (always RGB).
    static func iccColourSpace(_ profile: ColourProfile) -> String? {
        guard let icc = profile.icc, icc.count >= 20 else { return nil }
        return String(decoding: icc[16..<20].filter { $0 != 0x20 }, as: UTF8.self)
    }

    /// Checks an ICC profile's header and names it.
    static func icc(_ data: [UInt8], from place: String) -> Found {
        do {
            let header = try ICCHeader(data)
            return .profile(ColourProfile(icc: data, name: header.description ?? "unnamed \(header.colourSpace)"))
        } catch {
            return .ignored("ICC profile in \(place) ignored: \(error)")
        }
    }

    // MARK: JPEG

    /// APP2 segments "ICC_PROFILE\0", sequence number, count, data; joined in
    /// sequence order (ICC.1 annex B.4). Read up to the first scan.
    static func jpeg(_ bytes: [UInt8]) -> Found {
        var chunks: [Int: ArraySlice<UInt8>] = [:]
        var expected = 0
        var index = 2
        while index + 4 <= bytes.count, bytes[index] == 0xFF {
            let marker = bytes[index + 1]
            if marker == 0xFF {
                index += 1
                continue
            }
            if marker == 0xDA || marker == 0xD9 { break }
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            guard length >= 2, index + 2 + length <= bytes.count else { break }
            let body = bytes[(index + 4)..<(index + 2 + length)]
            if marker == 0xE2, body.count >= 14, body.prefix(12).elementsEqual(Array("ICC_PROFILE".utf8) + [0]) {
                let (sequence, count) = (Int(body[body.startIndex + 12]), Int(body[body.startIndex + 13]))
                guard sequence >= 1, count >= 1, sequence <= count, expected == 0 || expected == count,
                    chunks[sequence] == nil
                else { return .ignored("ICC profile in JPEG APP2 ignored: inconsistent segment numbers") }
                expected = count
                chunks[sequence] = body.dropFirst(14)
            }
            index += 2 + length
        }
        guard expected > 0 else { return .none }
        guard chunks.count == expected else {
            return .ignored("ICC profile in JPEG APP2 ignored: \(chunks.count) of \(expected) segments")
        }
        return icc((1...expected).flatMap { chunks[$0]! }, from: "JPEG APP2")
    }

    // MARK: PNG

    /// `iCCP` (name, method 0, zlib data) wins over `sRGB`, which wins over
    /// `gAMA`+`cHRM` (PNG 3rd edition 4.3); chunks after the first IDAT are not looked at.
    static func png(_ bytes: [UInt8]) -> Found {
        var gamma: Int?
        var chromaticities: [Int]?
        var isSRGB = false
        var index = 8
        while index + 12 <= bytes.count {
            let length = ICCHeader.read32(bytes, index)
            let type = String(decoding: bytes[(index + 4)..<(index + 8)], as: UTF8.self)
            guard length <= bytes.count - index - 12 else { break }
            let data = Array(bytes[(index + 8)..<(index + 8 + length)])
            switch type {
            case "IDAT", "IEND": index = bytes.count
            case "iCCP": return pngICC(data)
            case "sRGB": isSRGB = true
            case "gAMA" where length == 4: gamma = ICCHeader.read32(data, 0)
            case "cHRM" where length == 32: chromaticities = (0..<8).map { ICCHeader.read32(data, $0 * 4) }
            default: break
            }
            index += 12 + length
        }
        if isSRGB { return .none }
        guard let gamma, gamma > 0, let chromaticities else { return .none }
        let primaries = ColourProfile.Primaries(
            xy: chromaticities.map { Double($0) / 100_000 }, transfer: .gamma(100_000 / Double(gamma)))
        // libpng takes gAMA 1/2.2 with sRGB's chromaticities as sRGB; so do we.
        let nearSRGB = abs(100_000 / Double(gamma) - 2.2) < 0.05
        if nearSRGB, ColourProfile.Primaries(xy: primaries.xy, transfer: .sRGB).isSRGB { return .none }
        return .profile(ColourProfile(primaries: primaries, name: "PNG gAMA \(gamma) cHRM"))
    }

    private static func pngICC(_ data: [UInt8]) -> Found {
        guard let nul = data.prefix(80).firstIndex(of: 0), nul + 2 <= data.count, data[nul + 1] == 0 else {
            return .ignored("ICC profile in PNG iCCP ignored: malformed chunk")
        }
        let compressed = Array(data[(nul + 2)...])
        var capacity = max(64 << 10, compressed.count * 8)
        while true {
            var out = [UInt8](repeating: 0, count: capacity)
            let size = compressed.withUnsafeBufferPointer { source in
                out.withUnsafeMutableBufferPointer { target in
                    imgcache_zlib_inflate(source.baseAddress, source.count, target.baseAddress, target.count)
                }
            }
            if size >= 0 { return icc(Array(out.prefix(size)), from: "PNG iCCP") }
            // -1: damaged, or bigger than the buffer; try a larger one up to the cap.
            guard capacity < maxProfileBytes else {
                return .ignored("ICC profile in PNG iCCP ignored: damaged or over 16 MB")
            }
            capacity = min(capacity * 4, maxProfileBytes)
        }
    }

    // MARK: WebP

    /// The `ICCP` chunk of an extended (VP8X) WebP.
    static func webp(_ bytes: [UInt8]) -> Found {
        var index = 12
        while index + 8 <= bytes.count {
            let size =
                Int(bytes[index + 4]) | Int(bytes[index + 5]) << 8 | Int(bytes[index + 6]) << 16
                | Int(bytes[index + 7]) << 24
            guard size <= bytes.count - index - 8 else { break }
            let type = String(decoding: bytes[index..<(index + 4)], as: UTF8.self)
            if type == "ICCP" { return icc(Array(bytes[(index + 8)..<(index + 8 + size)]), from: "WebP ICCP") }
            if type == "VP8 " || type == "VP8L" || type == "ANMF" || type == "ANIM" { break }
            index += 8 + size + (size & 1)
        }
        return .none
    }

    // MARK: AVIF

    /// The `colr` property in `meta/iprp/ipco`: `prof`/`rICC` (an ICC
    /// profile), else `nclx` (coded primaries and transfer, ITU-T H.273).
    /// An image sequence without a still image (no `meta`; libavif writes
    /// one, other muxers need not) has it in its track's sample entry,
    /// `moov/trak/mdia/minf/stbl/stsd/av01`, where libavif reads it too.
    static func avif(_ bytes: [UInt8]) -> Found {
        if let meta = ISOBoxes.box("meta", in: bytes[...], headerExtra: 4),
            let iprp = ISOBoxes.box("iprp", in: meta), let ipco = ISOBoxes.box("ipco", in: iprp)
        {
            return colour(ISOBoxes.boxes("colr", in: ipco))
        }
        guard let moov = ISOBoxes.box("moov", in: bytes[...]) else { return .none }
        for trak in ISOBoxes.boxes("trak", in: moov) {
            guard let mdia = ISOBoxes.box("mdia", in: trak), let minf = ISOBoxes.box("minf", in: mdia),
                let stbl = ISOBoxes.box("stbl", in: minf), let stsd = ISOBoxes.box("stsd", in: stbl, headerExtra: 8),
                // A VisualSampleEntry's fields take 78 bytes before its boxes.
                let entry = ISOBoxes.box("av01", in: stsd, headerExtra: 78)
            else { continue }
            return colour(ISOBoxes.boxes("colr", in: entry))
        }
        return .none
    }

    // MARK: HEIF

    /// The `colr` properties of the primary item (a grid's, not its tiles'
    /// or a thumbnail's), as libheif reads them.
    static func heif(_ bytes: [UInt8]) -> Found {
        guard let items = HEIFItems(bytes) else { return .none }
        return colour(items.properties.filter { $0.type == "colr" }.map(\.payload))
    }

    /// What a list of `colr` boxes says: an ICC profile first, else `nclx`.
    private static func colour(_ colrs: [ArraySlice<UInt8>]) -> Found {
        var nclx: Found = .none
        for colr in colrs where colr.count >= 4 {
            let type = String(decoding: colr.prefix(4), as: UTF8.self)
            if type == "prof" || type == "rICC" { return icc(Array(colr.dropFirst(4)), from: "AVIF colr") }
            if type == "nclx", colr.count >= 10 {
                let base = colr.startIndex + 4
                let primaries = Int(colr[base]) << 8 | Int(colr[base + 1])
                let transfer = Int(colr[base + 2]) << 8 | Int(colr[base + 3])
                nclx = Self.nclx(primaries: primaries, transfer: transfer)
            }
        }
        return nclx
    }

    /// An `nclx` colour space, ITU-T H.273 code points: primaries 1
    /// (BT.709), 9 (BT.2020), 12 (Display P3); transfer 13 (sRGB), 1/6/14/15
    /// (BT.709), 4 (gamma 2.2), 16 (PQ), 18 (HLG). Unspecified (2) is sRGB.
    static func nclx(primaries: Int, transfer: Int) -> Found {
        let (xy, primariesName): ([Double], String)
        switch primaries {
        case 1, 2: (xy, primariesName) = (ColourProfile.Primaries.bt709, "BT.709")
        case 9: (xy, primariesName) = (ColourProfile.Primaries.bt2020, "BT.2020")
        case 12: (xy, primariesName) = (ColourProfile.Primaries.displayP3, "Display P3")
        default: return .ignored("nclx colour primaries \(primaries) not supported; taken as sRGB")
        }
        let (curve, transferName): (ColourProfile.Primaries.Transfer, String)
        switch transfer {
        case 2, 13: (curve, transferName) = (.sRGB, "sRGB")
        case 1, 6, 14, 15: (curve, transferName) = (.bt709, "BT.709")
        case 4: (curve, transferName) = (.gamma(2.2), "gamma 2.2")
        case 16: (curve, transferName) = (.pq, "PQ")
        case 18: (curve, transferName) = (.hlg, "HLG")
        default: return .ignored("nclx transfer characteristics \(transfer) not supported; taken as sRGB")
        }
        let colourSpace = ColourProfile.Primaries(xy: xy, transfer: curve)
        if colourSpace.isSRGB { return .none }
        return .profile(ColourProfile(primaries: colourSpace, name: "nclx \(primariesName) \(transferName)"))
    }
}
