/// Hosts that are IPv6 addresses, in the one form WHATWG's host serializer
/// gives them: `[0:0::1]`, `[0000::0001]` and `[::1]` are all `[::1]`, and
/// `[::ffff:127.0.0.1]` is `[::ffff:7f00:1]`, so each address is one entry
/// however it is written.
extension URLNormalization {
    /// `host` (`[` address `]`, lower-cased) as WHATWG serializes it; nil if
    /// it is not one WHATWG's IPv6 parser accepts (the URL is no URL then,
    /// and its host stays as written).
    static func ipv6Host<Bytes: BidirectionalCollection<UInt8>>(_ host: Bytes) -> [UInt8]? {
        guard host.first == UInt8(ascii: "["), host.last == UInt8(ascii: "]"), host.count > 2 else { return nil }
        guard let pieces = ipv6Pieces(Array(host.dropFirst().dropLast())) else { return nil }
        // The first longest run of two or more zero pieces becomes `::`.
        var (compress, longest) = (-1, 1)
        var index = 0
        while index < 8 {
            var end = index
            while end < 8, pieces[end] == 0 { end += 1 }
            if end - index > longest { (compress, longest) = (index, end - index) }
            index = end == index ? index + 1 : end
        }
        var text = "["
        index = 0
        while index < 8 {
            if index == compress {
                text += index == 0 ? "::" : ":"
                index += longest
                continue
            }
            text += String(pieces[index], radix: 16)
            if index != 7 { text += ":" }
            index += 1
        }
        return Array((text + "]").utf8)
    }

    /// WHATWG's IPv6 parser: eight 16-bit pieces, `::` standing for a run
    /// of zeros, the last 32 bits perhaps written as an IPv4 address.
    private static func ipv6Pieces(_ input: [UInt8]) -> [UInt16]? {
        var pieces = [UInt16](repeating: 0, count: 8)
        var (pieceIndex, pointer) = (0, 0)
        var compress: Int?
        func at(_ index: Int) -> UInt8? { index < input.count ? input[index] : nil }
        if at(0) == UInt8(ascii: ":") {
            guard at(1) == UInt8(ascii: ":") else { return nil }
            (pointer, pieceIndex, compress) = (2, 1, 1)
        }
        while let byte = at(pointer) {
            guard pieceIndex < 8 else { return nil }
            if byte == UInt8(ascii: ":") {
                guard compress == nil else { return nil }
                pointer += 1
                pieceIndex += 1
                compress = pieceIndex
                continue
            }
            var (value, length) = (0, 0)
            while length < 4, let digit = at(pointer).flatMap(hexValue) {
                value = value * 16 + digit
                pointer += 1
                length += 1
            }
            if at(pointer) == UInt8(ascii: ".") {
                guard length > 0, pieceIndex <= 6 else { return nil }
                pointer -= length
                var numbersSeen = 0
                while at(pointer) != nil {
                    if numbersSeen > 0 {
                        guard at(pointer) == UInt8(ascii: "."), numbersSeen < 4 else { return nil }
                        pointer += 1
                    }
                    guard let first = at(pointer), isDecimal(first) else { return nil }
                    var number: Int?
                    while let digit = at(pointer), isDecimal(digit) {
                        let value = Int(digit - UInt8(ascii: "0"))
                        if let seen = number {
                            guard seen != 0 else { return nil }
                            number = seen * 10 + value
                        } else {
                            number = value
                        }
                        guard number! <= 255 else { return nil }
                        pointer += 1
                    }
                    pieces[pieceIndex] = pieces[pieceIndex] &* 0x100 &+ UInt16(number!)
                    numbersSeen += 1
                    if numbersSeen == 2 || numbersSeen == 4 { pieceIndex += 1 }
                }
                guard numbersSeen == 4 else { return nil }
                break
            } else if at(pointer) == UInt8(ascii: ":") {
                pointer += 1
                guard at(pointer) != nil else { return nil }
            } else if at(pointer) != nil {
                return nil
            }
            pieces[pieceIndex] = UInt16(value)
            pieceIndex += 1
        }
        if let compress {
            var swaps = pieceIndex - compress
            pieceIndex = 7
            while pieceIndex != 0, swaps > 0 {
                pieces.swapAt(pieceIndex, compress + swaps - 1)
                pieceIndex -= 1
                swaps -= 1
            }
        } else if pieceIndex != 8 {
            return nil
        }
        return pieces
    }

    private static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte - UInt8(ascii: "A")) + 10
        default: nil
        }
    }

    private static func isDecimal(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}
