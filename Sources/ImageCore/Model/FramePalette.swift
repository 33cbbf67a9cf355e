/// The colours a frame of an indexed image (GIF) was drawn from: its own
/// local colour table, or the file's global one. An encoder of indexed
/// output maps scaled pixels back to these colours rather than inventing a
/// palette per frame (man page, ANIMATED THUMBNAILS).
public struct FramePalette: Sendable, Equatable {
    /// The table's colours in order, each packed as 0xRRGGBB.
    public var colours: [UInt32]
    /// The frame had a colour table of its own; frames without one share the global table.
    public var isLocal: Bool

    /// Creates a palette.
    public init(colours: [UInt32], isLocal: Bool) {
        self.colours = colours
        self.isLocal = isLocal
    }
}
