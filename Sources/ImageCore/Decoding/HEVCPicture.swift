internal import CImageCoreShims

/// One libde265 decoder and the picture it decoded (`imgcache_hevc_new`,
/// freed with `imgcache_hevc_free`, which also frees the picture).
final class HEVCPicture {
    private let decoder: OpaquePointer
    private var picture = imgcache_hevc_picture()

    private init?() {
        guard let decoder = imgcache_hevc_new() else { return nil }
        self.decoder = decoder
    }

    deinit { imgcache_hevc_free(decoder) }

    /// `image` decoded, handed to `body` while the picture lives; nil if
    /// libde265 failed or refused a NAL unit, or the data's length fields
    /// run past it. With `threads` above 0, libde265 decodes on that many
    /// worker threads of its own (`imgcache_hevc_start_threads`), the
    /// calling one waiting; if it says they could not be started, the
    /// calling thread decodes alone, with a decoder of its own (the picture
    /// is the same: wavefronts change the order of work, not its result).
    /// (libde265 1.0.x never says so itself, and with no worker started
    /// would wait forever: the shim tries a thread of its own first.) The
    /// corresponding C function is `imgcache_hevc_decode`.
    static func decode<Result>(
        _ image: HEVCThumbnail.CodedImage, _ bytes: [UInt8], threads: Int = 0, _ body: (HEVCPicture) -> Result
    ) -> Result? {
        guard let decoder = HEVCPicture() else { return nil }
        guard threads <= 0 || imgcache_hevc_start_threads(decoder.decoder, Int32(min(threads, 64))) == 0 else {
            return decode(image, bytes, threads: 0, body)
        }
        let pushed: Bool = bytes.withUnsafeBufferPointer { file in
            for unit in image.parameterSets {
                guard
                    unit.withUnsafeBufferPointer({
                        imgcache_hevc_push(decoder.decoder, $0.baseAddress, Int32($0.count))
                    })
                        == 0
                else { return false }
            }
            guard let units = image.units(in: bytes) else { return false }
            for unit in units {
                guard unit.count < Int(Int32.max),
                    imgcache_hevc_push(decoder.decoder, file.baseAddress! + unit.lowerBound, Int32(unit.count)) == 0
                else { return false }
            }
            return true
        }
        var message = [CChar](repeating: 0, count: 256)
        guard pushed, imgcache_hevc_decode(decoder.decoder, &decoder.picture, &message) == 0 else { return nil }
        return body(decoder)
    }

    /// The VUI's matrix and range (libheif takes them when the item has no `colr` nclx).
    var colour: (matrix: Int, fullRange: Bool) {
        (Int(picture.matrix_coefficients), picture.full_range != 0)
    }

    /// The three planes' sizes, when the picture is `width` × `height`,
    /// 8-bit, and its chroma planes are the luma's halved both ways
    /// (rounding up) or whole; nil otherwise.
    func layout(width: Int, height: Int) -> [(width: Int, height: Int)]? {
        let (widths, heights) = (picture.widths, picture.heights)
        let sizes = [
            (Int(widths.0), Int(heights.0)), (Int(widths.1), Int(heights.1)), (Int(widths.2), Int(heights.2)),
        ]
        let bits = [picture.bits.0, picture.bits.1, picture.bits.2]
        let halved = (width: (width + 1) / 2, height: (height + 1) / 2)
        let chroma: (width: Int, height: Int)
        switch picture.chroma {
        case 1: chroma = halved
        case 3: chroma = (width, height)
        default: return nil
        }
        guard bits == [8, 8, 8], sizes[0] == (width, height), sizes[1] == chroma, sizes[2] == chroma,
            picture.planes.0 != nil, picture.planes.1 != nil, picture.planes.2 != nil
        else { return nil }
        return sizes
    }

    /// Row `y` of `plane` (0: Y, 1: Cb, 2: Cr).
    func row(_ y: Int, plane: Int) -> UnsafePointer<UInt8> {
        let (base, stride) =
            switch plane {
            case 0: (picture.planes.0!, Int(picture.strides.0))
            case 1: (picture.planes.1!, Int(picture.strides.1))
            default: (picture.planes.2!, Int(picture.strides.2))
            }
        return base + y * stride
    }
}
