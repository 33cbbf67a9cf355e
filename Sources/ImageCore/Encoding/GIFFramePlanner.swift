/// Decides what each frame of a GIF must hold so that a viewer, drawing the
/// frames one over another, shows every composited frame it is given
/// (man page, ANIMATED THUMBNAILS):
///
/// - Colours come from the source's own colour table when the frame has one
///   (`DecodedImage.Frame.palette`), each pixel mapped to its nearest
///   colour; a colour is added to the table only where the nearest one is
///   visibly off (`visibleDistance`) and the table has room. A frame without
///   one (a WebP, a PNG) gets a table of its own by median cut.
/// - A pixel the viewer already shows as closely as the table could is
///   written as the transparent index, and the frame is cut to the smallest
///   rectangle holding the pixels it does draw, so a frame that moves a
///   sprite costs the sprite.
/// - A pixel that must turn transparent again can only be cleared by the
///   frame before it: that frame's disposal becomes "restore to background"
///   and its rectangle grows to cover the pixel, which is why a frame is
///   decided only when the next one arrives.
///
/// The viewer's canvas is tracked as it will be shown (`displayed`), so the
/// error never builds up from frame to frame.
struct GIFFramePlanner {
    /// One frame as it will be written.
    struct Frame {
        /// Where on the canvas it is drawn.
        var rect: PixelRect
        /// Per pixel of `rect`, row by row: an index into its palette's
        /// colours, or `keep` for the transparent index.
        var indices: [UInt16]
        /// Restore the rectangle to background (transparent) after showing it.
        var clearsAfterwards = false
        /// Index into `palettes`.
        var palette: Int
        var durationMilliseconds: Int
    }

    /// A colour table being built: the source's colours, then any added.
    struct Palette {
        var colours: [UInt32]
        /// How many pixels of the written frames use each colour.
        var uses: [Int]
        let isLocal: Bool
        var usedCount = 0
        /// Kept from frame to frame: most colours of a frame were asked for before.
        var nearest: NearestColour

        init(_ colours: [UInt32], isLocal: Bool) {
            self.colours = colours
            uses = [Int](repeating: 0, count: colours.count)
            self.isLocal = isLocal
            nearest = NearestColour(colours)
        }

        mutating func add(_ colour: UInt32) {
            colours.append(colour)
            uses.append(0)
            nearest = NearestColour(colours)
        }
    }

    /// The index standing for "leave the canvas as it is" (transparent).
    static let keep = UInt16.max
    /// A colour further than this (Euclidean, in 0–255 RGB) from the pixel
    /// it stands for is a visible error: a closer one is added to the table
    /// while it has room. The man page states the bound.
    static let visibleDistance = 24

    let width: Int
    let height: Int
    private(set) var frames: [Frame] = []
    private(set) var palettes: [Palette] = []
    /// The canvas as a viewer shows it after the frames so far: 0 for
    /// transparent, else 0xFF000000 | RGB.
    private var displayed: [UInt32]
    /// The last frame given, to skip pixels that did not change.
    private var previousTarget: [UInt8] = []
    private var globalPalette: Int?
    private var localPalettes: [[UInt32]: Int] = [:]

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        displayed = [UInt32](repeating: 0, count: width * height)
    }

    /// Plans the next composited frame (`width × height` RGBA; alpha below
    /// 128 is transparent).
    mutating func add(_ pixels: [UInt8], palette source: FramePalette?, durationMilliseconds: Int) {
        let paletteIndex = palette(for: source, pixels: pixels)
        let cleared = clearForTransparency(pixels)
        var decided = decide(pixels, palette: paletteIndex, cleared: cleared)
        addColours(for: &decided, palette: paletteIndex)
        frames.append(write(decided, palette: paletteIndex, durationMilliseconds: durationMilliseconds))
        previousTarget = pixels
    }

    // MARK: - Palettes

    private mutating func palette(for source: FramePalette?, pixels: [UInt8]) -> Int {
        guard let source, !source.colours.isEmpty else {
            // No table to keep: one of the frame's own, leaving room for the transparent index.
            let quantized = ColorQuantizer.quantize(pixels, maxColors: 255).colors
            palettes.append(
                Palette(
                    quantized.map { UInt32($0.red) << 16 | UInt32($0.green) << 8 | UInt32($0.blue) }, isLocal: true))
            return palettes.count - 1
        }
        if !source.isLocal, let globalPalette { return globalPalette }
        if source.isLocal, let seen = localPalettes[source.colours] { return seen }
        palettes.append(Palette(source.colours, isLocal: source.isLocal))
        if source.isLocal {
            localPalettes[source.colours] = palettes.count - 1
        } else {
            globalPalette = palettes.count - 1
        }
        return palettes.count - 1
    }

    // MARK: - Disposal

    /// Pixels the viewer shows but this frame has transparent can only be
    /// cleared by the previous frame's disposal: it becomes "restore to
    /// background" over a rectangle grown to hold them. Returns the cleared
    /// rectangle.
    private mutating func clearForTransparency(_ pixels: [UInt8]) -> PixelRect {
        var needed = PixelRect.empty
        for y in 0..<height {
            let row = y * width
            func mustClear(_ x: Int) -> Bool { pixels[(row + x) * 4 + 3] < 128 && displayed[row + x] != 0 }
            guard let first = (0..<width).first(where: mustClear) else { continue }
            let last = (first..<width).last(where: mustClear)!
            needed = needed.union(PixelRect(x: first..<(last + 1), y: y..<(y + 1)))
        }
        guard !needed.isEmpty, var last = frames.popLast() else { return .empty }
        let grown = last.rect.union(needed)
        if grown != last.rect {
            var indices = [UInt16](repeating: Self.keep, count: grown.width * grown.height)
            for y in last.rect.y {
                for x in last.rect.x {
                    indices[(y - grown.y.lowerBound) * grown.width + x - grown.x.lowerBound] =
                        last.indices[(y - last.rect.y.lowerBound) * last.rect.width + x - last.rect.x.lowerBound]
                }
            }
            (last.rect, last.indices) = (grown, indices)
        }
        last.clearsAfterwards = true
        frames.append(last)
        for y in grown.y { for x in grown.x { displayed[y * width + x] = 0 } }
        return grown
    }

    // MARK: - Pixels

    /// A pixel further than `visibleDistance` from what the viewer will show.
    private struct VisiblyOff {
        var position: Int
        var distance: Int
        var target: UInt32
    }

    /// A frame's pixels as planned, over the whole canvas.
    private struct Decided {
        /// Per pixel: a colour of the palette, or `keep`.
        var drawn: [UInt16]
        var visiblyOff: [VisiblyOff] = []
    }

    private mutating func decide(_ pixels: [UInt8], palette: Int, cleared: PixelRect) -> Decided {
        var drawn = [UInt16](repeating: Self.keep, count: width * height)
        var visiblyOff: [VisiblyOff] = []
        var nearest = NearestColour([])
        swap(&nearest, &palettes[palette].nearest)  // no copy of its cache
        defer { swap(&nearest, &palettes[palette].nearest) }
        let unchangedAllowed = previousTarget.count == pixels.count && frames.last?.palette == palette
        let visible = Self.visibleDistance * Self.visibleDistance
        let (width, height, keep, displayed) = (self.width, self.height, Self.keep, self.displayed)
        let previous = unchangedAllowed ? previousTarget : []
        drawn.withUnsafeMutableBufferPointer { drawn in
            displayed.withUnsafeBufferPointer { displayed in
                pixels.withUnsafeBytes { pixels in
                    previous.withUnsafeBytes { previous in
                        for y in 0..<height {
                            let inClearedRows = cleared.y.contains(y)
                            for x in 0..<width {
                                let position = y * width + x, byte = position * 4
                                guard pixels[byte + 3] >= 128 else { continue }  // already transparent on the canvas
                                if !previous.isEmpty && !(inClearedRows && cleared.x.contains(x))
                                    && previous.loadUnaligned(fromByteOffset: byte, as: UInt32.self)
                                        == pixels.loadUnaligned(fromByteOffset: byte, as: UInt32.self)
                                {
                                    continue  // shown as it was decided for the frame before
                                }
                                let target =
                                    UInt32(pixels[byte]) << 16 | UInt32(pixels[byte + 1]) << 8
                                    | UInt32(pixels[byte + 2])
                                var (index, distance) = nearest.find(target)
                                let shown = displayed[position]
                                if shown != 0 {
                                    let kept = NearestColour.distance(shown & 0xFF_FFFF, target)
                                    if kept <= distance { (index, distance) = (keep, kept) }
                                }
                                drawn[position] = index
                                if distance > visible {
                                    visiblyOff.append(
                                        VisiblyOff(position: position, distance: distance, target: target))
                                }
                            }
                        }
                    }
                }
            }
        }
        return Decided(drawn: drawn, visiblyOff: visiblyOff)
    }

    /// Adds the colours of the pixels furthest off, one at a time, while
    /// any pixel is visibly off and the table has room (a slot stays free
    /// for the transparent index).
    private mutating func addColours(for decided: inout Decided, palette: Int) {
        guard !decided.visiblyOff.isEmpty else { return }
        let visible = Self.visibleDistance * Self.visibleDistance
        // Colours this frame starts to use count against the room too.
        var newlyUsed = Set<UInt16>()
        for index in decided.drawn where index != Self.keep && palettes[palette].uses[Int(index)] == 0 {
            newlyUsed.insert(index)
        }
        var added = 0
        var open = decided.visiblyOff
        while let worst = open.indices.max(by: { open[$0].distance < open[$1].distance }),
            palettes[palette].usedCount + newlyUsed.count + added + 1 < 256
        {
            let colour = open[worst].target
            palettes[palette].add(colour)
            added += 1
            let index = UInt16(palettes[palette].colours.count - 1)
            for item in open.indices {
                let distance = NearestColour.distance(colour, open[item].target)
                if distance < open[item].distance {
                    open[item].distance = distance
                    decided.drawn[open[item].position] = index
                }
            }
            open.removeAll { $0.distance <= visible }
        }
    }

    /// The frame from its decisions: the rectangle of drawn pixels, the
    /// viewer's canvas updated.
    private mutating func write(_ decided: Decided, palette: Int, durationMilliseconds: Int) -> Frame {
        var rect = PixelRect.empty
        for y in 0..<height {
            let row = y * width
            guard let first = (0..<width).first(where: { decided.drawn[row + $0] != Self.keep }) else { continue }
            let last = (first..<width).last { decided.drawn[row + $0] != Self.keep }!
            rect = rect.union(PixelRect(x: first..<(last + 1), y: y..<(y + 1)))
        }
        // GIF has no empty frame: one transparent pixel holds the duration.
        if rect.isEmpty {
            return Frame(
                rect: PixelRect(x: 0..<1, y: 0..<1), indices: [Self.keep], palette: palette,
                durationMilliseconds: durationMilliseconds)
        }
        var indices = [UInt16]()
        indices.reserveCapacity(rect.width * rect.height)
        for y in rect.y {
            for x in rect.x {
                let position = y * width + x, index = decided.drawn[position]
                indices.append(index)
                guard index != Self.keep else { continue }
                if palettes[palette].uses[Int(index)] == 0 { palettes[palette].usedCount += 1 }
                palettes[palette].uses[Int(index)] += 1
                displayed[position] = 0xFF00_0000 | palettes[palette].colours[Int(index)]
            }
        }
        return Frame(rect: rect, indices: indices, palette: palette, durationMilliseconds: durationMilliseconds)
    }
}
