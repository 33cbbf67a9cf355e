import Foundation
import TestSupport

/// A stream of PAM images, one per frame, as `--decode pam` and the fixture
/// script write them.
enum NetpbmStream {
    /// Every image in `bytes`, in order.
    static func images(_ bytes: [UInt8]) throws -> [NetpbmImage] {
        var images: [NetpbmImage] = []
        var rest = bytes[...]
        while !rest.isEmpty {
            let image = try NetpbmImage(Array(rest))
            images.append(image)
            // A PAM header ends with "ENDHDR\n"; the samples follow.
            guard let header = rest.firstRange(of: Array("ENDHDR\n".utf8)) else {
                throw CocoaError(.fileReadCorruptFile)
            }
            rest = rest[(header.upperBound + image.width * image.height * image.depth)...]
        }
        return images
    }

    /// Whether `pixels` equal `image`'s within `tolerance` per channel,
    /// ignoring the colour of fully transparent pixels.
    static func close(_ pixels: [UInt8], _ image: NetpbmImage, tolerance: Int) -> Bool {
        let ours = NetpbmImage.zeroingTransparent(pixels), theirs = NetpbmImage.zeroingTransparent(image.rgba)
        return ours.count == theirs.count && zip(ours, theirs).allSatisfy { abs(Int($0) - Int($1)) <= tolerance }
    }
}
