internal import CImageCoreShims

/// Animated PNG: our own chunk walk (`APNGStructure`) for the frames, libpng
/// for each frame's pixels, `APNGCompositor` for the canvas. libpng cannot
/// read fdAT, so each frame is handed to it as a PNG of its own: the file's
/// IHDR with the frame's size, PLTE and tRNS, one IDAT holding the frame's
/// data, IEND. Only frames of the animation are decoded: a default image
/// that is not one of them is never shown, so it is skipped.
struct APNGDecoder {
    let limits: DecodingLimits

    /// Header facts of an animation, its limits checked: canvas × frames,
    /// before any pixel buffer exists.
    func info(_ structure: APNGStructure) throws -> ImageInfo {
        try limits.check(width: structure.width, height: structure.height, frames: structure.frames.count)
        return ImageInfo(
            format: .png, width: structure.width, height: structure.height,
            frameCount: structure.frames.count, loopCount: structure.plays,
            frameDurations: structure.frames.count > 1 ? structure.frames.map(\.durationMilliseconds) : [])
    }

    /// Every composited frame, kept.
    func decode(_ structure: APNGStructure) throws -> DecodedImage {
        var frames: [DecodedImage.Frame] = []
        let info = try decode(structure) { canvas, duration in
            frames.append(DecodedImage.Frame(pixels: Array(canvas), durationMilliseconds: duration))
        }
        return DecodedImage(
            format: .png, width: info.width, height: info.height, frames: frames, loopCount: info.loopCount)
    }

    /// Hands each composited frame to `sink` as it is made: one canvas in
    /// memory, whatever the frame count.
    func decode(_ structure: APNGStructure, into sink: inout some FrameSink) throws {
        try sink.begin(width: structure.width, height: structure.height)
        let info = try decode(structure) { canvas, duration in
            try sink.write(frame: UnsafeRawBufferPointer(canvas), durationMilliseconds: duration)
        }
        try sink.finish(loopCount: info.loopCount)
    }

    /// Hands each composited frame to `eachFrame` as it is made (the canvas,
    /// valid only during the call, and its duration): one canvas and one
    /// frame's pixels in memory, whatever the frame count. The corresponding
    /// C function is `imgcache_png_decode_rgba8` (png_read_image), once per frame.
    func decode(
        _ structure: APNGStructure,
        eachFrame: (UnsafeBufferPointer<UInt8>, Int) throws -> Void
    ) throws -> ImageInfo {
        let info = try info(structure)
        var compositor = APNGCompositor(width: info.width, height: info.height)
        for (number, frame) in structure.frames.enumerated() {
            let png = Self.synthesize(frame, of: structure)
            var pixels = [UInt8](repeating: 0, count: frame.width * frame.height * 4)
            var error = [CChar](repeating: 0, count: 256)
            let status = png.withUnsafeBufferPointer { source in
                pixels.withUnsafeMutableBufferPointer { target in
                    imgcache_png_decode_rgba8(
                        source.baseAddress, source.count, target.baseAddress, target.count, &error)
                }
            }
            guard status == 0 else {
                let message = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                throw ImageCoreError(.image, "corrupt APNG: frame \(number): \(message)")
            }
            try compositor.draw(pixels, frame: frame) { try eachFrame($0, frame.durationMilliseconds) }
        }
        return info
    }

    /// A whole PNG holding one frame.
    static func synthesize(_ frame: APNGStructure.Frame, of structure: APNGStructure) -> [UInt8] {
        var header = Array(structure.header)
        header.replaceSubrange(
            0..<8, with: PNGChunkWriter.bigEndian(frame.width) + PNGChunkWriter.bigEndian(frame.height))
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png.reserveCapacity(64 + structure.pixelChunks.count + frame.data.count)
        PNGChunkWriter.append("IHDR", header, to: &png)
        png += structure.pixelChunks
        PNGChunkWriter.append("IDAT", frame.data, to: &png)
        PNGChunkWriter.append("IEND", [], to: &png)
        return png
    }

}
