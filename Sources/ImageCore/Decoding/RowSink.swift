/// Receives a still image's rows as they are decoded, so no full-frame
/// buffer is ever held (`fetch --decode ppm|pam`).
///
/// Thread safety: a sink is used by one decode, on one thread.
public protocol RowSink {
    /// Called once, before any row: the size, and bytes per pixel (3 for
    /// RGB, 4 for RGBA).
    mutating func begin(width: Int, height: Int, channels: Int) throws

    /// The next whole rows, top to bottom, `width × channels` bytes each with
    /// no padding. The memory is valid only during the call.
    mutating func write(rows: UnsafeRawBufferPointer) throws
}

/// Writes what a `RowSink` receives as one Netpbm image: PPM (RGB) or PAM
/// (`TUPLTYPE RGB_ALPHA`), handing each piece to `output` at once.
package struct NetpbmRowWriter: RowSink {
    /// PAM or PPM (`.png` is not a row format).
    package let format: OutputFormat.Pixels
    private let output: (UnsafeRawBufferPointer) throws -> Void

    /// A writer of `format` (`.pam` or `.ppm`) that passes bytes to `output`.
    package init(format: OutputFormat.Pixels, output: @escaping (UnsafeRawBufferPointer) throws -> Void) {
        self.format = format
        self.output = output
    }

    /// Bytes per pixel the format wants from a decoder.
    package var channels: Int { format == .pam ? 4 : 3 }

    package mutating func begin(width: Int, height: Int, channels: Int) throws {
        let header =
            format == .pam
            ? NetpbmWriter.pamHeader(width: width, height: height)
            : NetpbmWriter.ppmHeader(width: width, height: height)
        try header.withUnsafeBytes { try output($0) }
    }

    package mutating func write(rows: UnsafeRawBufferPointer) throws {
        try output(rows)
    }
}
