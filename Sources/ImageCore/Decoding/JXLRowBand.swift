/// Puts the pieces of rows libjxl renders back in order for a `RowSink`:
/// libjxl renders group by group (256×256 pixels), so a row is whole only
/// once the last group across has delivered its piece. The rows not yet
/// handed on are kept in a ring; it holds a group's height at first and
/// grows only if libjxl runs further ahead, so memory follows what arrived.
final class JXLRowBand<Sink: RowSink>: JXLPixelReceiver {
    private(set) var sink: Sink
    private let width: Int
    private let height: Int
    private let rowBytes: Int
    /// Rows the ring holds; row `y` lives in slot `y % capacity`.
    private var capacity: Int
    private var rows: [UInt8]
    /// Pixels received, per slot.
    private var received: [Int]
    /// The first row not yet handed on.
    private var top = 0

    init(_ sink: Sink, width: Int, height: Int, channels: Int) {
        self.sink = sink
        self.width = width
        self.height = height
        rowBytes = width * channels
        capacity = min(height, 256)
        rows = [UInt8](repeating: 0, count: capacity * rowBytes)
        received = [Int](repeating: 0, count: capacity)
        super.init(channels: channels)
    }

    override func receive(x: Int, y: Int, count: Int, pixels: UnsafePointer<Float>) {
        guard failure == nil else { return }
        guard y >= top, y < height, x + count <= width else { return fail(outside: (x, y, count)) }
        if y >= top + capacity { grow(toHold: y) }
        let slot = y % capacity
        rows.withUnsafeMutableBufferPointer { target in
            Self.quantize(pixels, count: count * channels, into: target.baseAddress! + slot * rowBytes + x * channels)
        }
        received[slot] += count
        if y == top, received[slot] >= width { handOnWholeRows() }
    }

    /// Throws the sink's error, or `.image` if rows are missing once libjxl says the frame is done.
    func finish() throws {
        if let failure { throw failure }
        guard top == height else {
            throw ImageCoreError(.image, "corrupt JPEG XL: \(height - top) of \(height) rows never decoded")
        }
    }

    /// Writes the whole rows from `top` on, in runs that do not wrap around the ring.
    private func handOnWholeRows() {
        while top < height, received[top % capacity] >= width {
            var end = top + 1
            while end < height, end % capacity != 0, received[end % capacity] >= width { end += 1 }
            let start = top % capacity
            do {
                try rows.withUnsafeBytes { buffer in
                    try sink.write(
                        rows: UnsafeRawBufferPointer(
                            rebasing: buffer[(start * rowBytes)..<((start + end - top) * rowBytes)]))
                }
            } catch {
                failure = error
                return
            }
            for row in top..<end { received[row % capacity] = 0 }
            top = end
        }
    }

    /// A larger ring holding row `y` too, with the rows kept so far moved to their new slots.
    private func grow(toHold y: Int) {
        let newCapacity = min(height, max(y - top + 1, capacity + capacity / 2))
        var newRows = [UInt8](repeating: 0, count: newCapacity * rowBytes)
        var newReceived = [Int](repeating: 0, count: newCapacity)
        for row in top..<min(top + capacity, height) {
            let (from, to) = (row % capacity, row % newCapacity)
            newRows[(to * rowBytes)..<((to + 1) * rowBytes)] = rows[(from * rowBytes)..<((from + 1) * rowBytes)]
            newReceived[to] = received[from]
        }
        (capacity, rows, received) = (newCapacity, newRows, newReceived)
    }
}
