/// Pixels brought to sRGB through their colour profile (`--colorspace
/// srgb`): a decoded image's frames in place, or rows on their way to a
/// `RowSink`, a few at a time, so no full frame is ever held for it.
enum SRGBConversion {
    /// A transform for `profile` on RGB(A) pixels, or nil when the profile
    /// cannot be used (then `notes` says why; the pixels are used as stored).
    static func transform(_ profile: ColourProfile, channels: Int, notes: EventLog) -> ColourTransform? {
        do {
            return try ColourTransform(profile, layout: channels == 4 ? .rgba : .rgb, outputChannels: channels)
        } catch {
            notes.emit("colour: \(error)")
            return nil
        }
    }

    /// Every frame of `image` (RGBA) converted in place; `image.colour` is
    /// then nil. Left as it is when its profile cannot be used.
    static func convert(_ image: inout DecodedImage, notes: EventLog) {
        guard let profile = image.colour else { return }
        image.colour = nil
        guard let transform = transform(profile, channels: 4, notes: notes) else { return }
        for index in image.frames.indices {
            image.frames[index].pixels.withUnsafeMutableBytes { transform.convert(inPlace: $0) }
        }
    }
}

/// Passes rows on to `base` converted to sRGB through `transform`, which
/// reads and writes the sink's pixel layout (RGB or RGBA).
struct SRGBRowSink<Base: RowSink>: RowSink {
    var base: Base
    private let transform: ColourTransform
    private var scratch: [UInt8] = []

    init(_ base: Base, transform: ColourTransform) {
        self.base = base
        self.transform = transform
    }

    mutating func begin(width: Int, height: Int, channels: Int) throws {
        try base.begin(width: width, height: height, channels: channels)
    }

    mutating func write(rows: UnsafeRawBufferPointer) throws {
        guard let source = rows.baseAddress else { return try base.write(rows: rows) }
        if scratch.count < rows.count { scratch = [UInt8](repeating: 0, count: rows.count) }
        let transform = self.transform
        try scratch.withUnsafeMutableBytes { target in
            transform.convert(source, to: target.baseAddress!, count: rows.count / transform.inputBytes)
            try base.write(rows: UnsafeRawBufferPointer(rebasing: target[..<rows.count]))
        }
    }
}
