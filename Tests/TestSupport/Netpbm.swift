import Foundation

/// Reads the PAM and PPM files the reference decoders wrote.
package struct NetpbmImage {
    package var width: Int
    package var height: Int
    package var depth: Int
    package var maxValue: Int
    package var samples: [UInt8]

    /// Parses the first image of a P6 or P7 file (maxval 255 only).
    package init(_ bytes: [UInt8]) throws {
        func fail() -> any Error { CocoaError(.fileReadCorruptFile) }
        var index = 0
        func token() -> String {
            while index < bytes.count,
                bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x09 || bytes[index] == 0x0D
            {
                index += 1
            }
            let start = index
            while index < bytes.count,
                !(bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x09 || bytes[index] == 0x0D)
            {
                index += 1
            }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }
        let magic = token()
        if magic == "P6" {
            guard let w = Int(token()), let h = Int(token()), let m = Int(token()) else { throw fail() }
            (width, height, depth, maxValue) = (w, h, 3, m)
            index += 1
        } else if magic == "P7" {
            var fields: [String: String] = [:]
            while index < bytes.count {
                let key = token()
                if key == "ENDHDR" { break }
                fields[key] = token()
            }
            index += 1
            guard let w = fields["WIDTH"].flatMap(Int.init), let h = fields["HEIGHT"].flatMap(Int.init),
                let d = fields["DEPTH"].flatMap(Int.init), let m = fields["MAXVAL"].flatMap(Int.init)
            else { throw fail() }
            (width, height, depth, maxValue) = (w, h, d, m)
        } else {
            throw fail()
        }
        guard maxValue == 255 else { throw fail() }
        let count = width * height * depth
        guard bytes.count - index >= count else { throw fail() }
        samples = Array(bytes[index..<index + count])
    }

    /// The samples as RGBA: gray expanded to RGB, opaque alpha added where there is none.
    package var rgba: [UInt8] {
        guard depth != 4 else { return samples }
        var out = [UInt8]()
        out.reserveCapacity(width * height * 4)
        for pixel in 0..<(width * height) {
            let tuple = samples[pixel * depth..<(pixel + 1) * depth]
            switch depth {
            case 1, 2: out += [tuple.first!, tuple.first!, tuple.first!, depth == 2 ? tuple.last! : 255]
            default: out += tuple.prefix(3) + [255]
            }
        }
        return out
    }

    /// Whether decoded RGBA pixels show the same image: RGB only for a PPM
    /// (its alpha is implied), and for PAM the colour under fully
    /// transparent pixels is ignored, since tools differ on it.
    package func matches(_ pixels: [UInt8]) -> Bool {
        if depth == 3 {
            return stride(from: 0, to: pixels.count, by: 4).flatMap { pixels[$0..<$0 + 3] } == samples
        }
        return Self.zeroingTransparent(pixels) == Self.zeroingTransparent(rgba)
    }

    /// RGBA with every fully transparent pixel set to 0,0,0,0.
    package static func zeroingTransparent(_ pixels: [UInt8]) -> [UInt8] {
        var out = pixels
        for index in stride(from: 0, to: out.count, by: 4) where out[index + 3] == 0 {
            out[index] = 0
            out[index + 1] = 0
            out[index + 2] = 0
        }
        return out
    }
}
