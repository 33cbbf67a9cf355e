/// The size a caller wants pixels at: fit inside a box (`--thumbnail WxH`)
/// or at most a number of pixels (`--max-pixels N`). The aspect ratio is
/// kept and images are never enlarged.
public enum ScaleTarget: Sendable, Equatable {
    /// Fit inside width × height.
    case fit(width: Int, height: Int)
    /// The largest size with at most this many pixels.
    case maxPixels(Int)

    /// Parses "WxH" (both at least 1).
    public init?(thumbnail text: String) {
        let parts = text.lowercased().split(separator: "x")
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]), width > 0, height > 0 else {
            return nil
        }
        self = .fit(width: width, height: height)
    }

    /// The output size for an image of `width` × `height`.
    public func size(width: Int, height: Int) -> (width: Int, height: Int) {
        guard width > 0, height > 0 else { return (width, height) }
        switch self {
        case .fit(let boxWidth, let boxHeight):
            let scale = min(1, Double(boxWidth) / Double(width), Double(boxHeight) / Double(height))
            guard scale < 1 else { return (width, height) }
            return (
                min(boxWidth, max(1, Int((Double(width) * scale).rounded()))),
                min(boxHeight, max(1, Int((Double(height) * scale).rounded())))
            )
        case .maxPixels(let limit):
            guard width * height > limit else { return (width, height) }
            let scale = (Double(limit) / Double(width * height)).squareRoot()
            var size = (width: max(1, Int(Double(width) * scale)), height: max(1, Int(Double(height) * scale)))
            while size.width * size.height > limit && size.width > 1 && size.height > 1 {
                if size.width >= size.height { size.width -= 1 } else { size.height -= 1 }
            }
            return size
        }
    }
}
