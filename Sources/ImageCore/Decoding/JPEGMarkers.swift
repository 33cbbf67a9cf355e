internal import CImageCoreShims

/// A walk over a JPEG's marker segments, reading no pixel data: before a
/// download is stored, its scans are counted against the limit and its
/// end-of-image marker is required (decoding enforces the scan limit again,
/// through libjpeg's progress monitor).
enum JPEGMarkers {
    /// Number of SOS (start of scan) markers; stops at EOI or the end of data.
    static func countScans(_ bytes: [UInt8]) -> Int {
        walk(bytes).scans
    }

    /// The scans counted, and whether the walk reached the EOI marker (a
    /// file cut short never does).
    static func walk(_ bytes: [UInt8]) -> (scans: Int, complete: Bool) {
        var scans = 0
        var index = 2  // after SOI
        while index + 3 < bytes.count {
            guard bytes[index] == 0xFF else {
                index += 1
                continue
            }
            let marker = bytes[index + 1]
            switch marker {
            case 0xFF:
                index += 1  // fill byte
            case 0xD9:
                return (scans, true)  // EOI
            case 0x01, 0xD0...0xD7:
                index += 2  // markers without a length
            default:
                let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
                index += 2 + length
                if marker == 0xDA {
                    scans += 1
                    index = skipEntropyCodedData(bytes, from: index)
                }
            }
        }
        // EOI as the file's last two bytes (the loop stops 3 bytes short).
        let complete = bytes.count >= 4 && bytes[bytes.count - 2] == 0xFF && bytes[bytes.count - 1] == 0xD9
        return (scans, complete)
    }

    /// The index of the next marker after entropy-coded data (0xFF followed by
    /// anything but 0x00, a restart marker or a fill byte), or the end. The
    /// corresponding C function is `imgcache_jpeg_entropy_end`: one pass with
    /// vectors, where `memchr` started again at each stuffed 0xFF 0x00.
    private static func skipEntropyCodedData(_ bytes: [UInt8], from start: Int) -> Int {
        bytes.withUnsafeBufferPointer { imgcache_jpeg_entropy_end($0.baseAddress, $0.count, start) }
    }
}
