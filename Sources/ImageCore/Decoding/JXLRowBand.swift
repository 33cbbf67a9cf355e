import Synchronization

/// Puts the pieces of rows libjxl renders back in order for a `RowSink`:
/// libjxl renders group by group (256×256 pixels), on several threads when
/// it has a pool, so a row is whole only once the last group across has
/// delivered its piece, and rows arrive out of order. The rows not yet
/// handed on are kept in a ring of chunks of rows; it holds a group's height
/// at first and grows only if libjxl runs further ahead, so memory follows
/// what arrived.
///
/// Threads: a piece is converted into its row outside the lock (pieces never
/// overlap, and a row's memory never moves: growing the ring moves chunks,
/// not rows); the lock guards the bookkeeping. Whole rows go to the sink in
/// order from one thread at a time, the one that finds them whole and finds
/// no other writing; the others carry on decoding meanwhile.
final class JXLRowBand<Sink: RowSink>: JXLPixelReceiver, @unchecked Sendable {
    /// Rows per chunk: the most the sink is handed at once.
    private static var chunkRows: Int { 16 }

    /// The sink, touched only by the thread holding `Ring.writing` (or by
    /// the decoding thread once libjxl has returned, through `sink`).
    private var rowSink: Sink
    private let width: Int
    private let height: Int
    private let rowBytes: Int
    private let ring: Mutex<Ring>

    /// Rows memory: one chunk of `chunkRows` rows, freed with the last reference.
    private final class Chunk: @unchecked Sendable {
        let bytes: UnsafeMutableRawPointer
        init(bytes count: Int) { bytes = .allocate(byteCount: count, alignment: 16) }
        deinit { bytes.deallocate() }
    }

    /// What the lock guards.
    private struct Ring {
        /// Row `y` lives in chunk `(y / chunkRows) % chunks.count`.
        var chunks: [Chunk]
        /// Pixels received, per row slot (`chunkRows` per chunk, in chunk order).
        var received: [Int]
        /// The first row not yet handed on.
        var top = 0
        /// True while a thread hands rows to the sink.
        var writing = false
    }

    /// Whole rows claimed for the sink: `count` rows from `first`, contiguous at `bytes`.
    private struct Run {
        let first: Int
        let count: Int
        let chunk: Chunk
        let offset: Int
    }

    init(_ sink: Sink, width: Int, height: Int, channels: Int) {
        rowSink = sink
        self.width = width
        self.height = height
        rowBytes = width * channels
        let chunkCount = (min(height, 256) + Self.chunkRows - 1) / Self.chunkRows
        let bytes = rowBytes * Self.chunkRows
        ring = Mutex(
            Ring(
                chunks: (0..<chunkCount).map { _ in Chunk(bytes: bytes) },
                received: [Int](repeating: 0, count: chunkCount * Self.chunkRows)))
        super.init(channels: channels)
    }

    /// The sink, once libjxl has returned: taken through the lock, so that
    /// the last writer's changes are seen whichever thread made them.
    var sink: Sink {
        ring.withLock { _ in }
        return rowSink
    }

    override func receive(x: Int, y: Int, count: Int, pixels: UnsafePointer<Float>) {
        guard failure == nil else { return }
        let rowBytes = rowBytes
        let target: (chunk: Chunk, offset: Int)? = ring.withLock { ring in
            guard y >= ring.top, y < height, x >= 0, x + count <= width else { return nil }
            if y / Self.chunkRows - ring.top / Self.chunkRows >= ring.chunks.count {
                Self.grow(&ring, toHold: y, rowBytes)
            }
            let chunk = ring.chunks[(y / Self.chunkRows) % ring.chunks.count]
            return (chunk, (y % Self.chunkRows) * rowBytes + x * channels)
        }
        guard let target else { return fail(outside: (x, y, count)) }
        Self.quantize(
            pixels, count: count * channels,
            into: target.chunk.bytes.assumingMemoryBound(to: UInt8.self) + target.offset)
        var run = ring.withLock { ring in
            ring.received[Self.slot(y, ring)] += count
            return claim(&ring)
        }
        while let claimed = run {
            var error: (any Error)?
            do {
                try rowSink.write(
                    rows: UnsafeRawBufferPointer(
                        start: claimed.chunk.bytes + claimed.offset, count: claimed.count * rowBytes))
            } catch let thrown {
                error = thrown
            }
            if let error { record(error) }
            run = ring.withLock { ring in
                for row in claimed.first..<(claimed.first + claimed.count) { ring.received[Self.slot(row, ring)] = 0 }
                ring.top = claimed.first + claimed.count
                ring.writing = false
                return error == nil ? claim(&ring) : nil
            }
        }
    }

    /// Throws the sink's error, or `.image` if rows are missing once libjxl says the frame is done.
    func finish() throws {
        if let failure { throw failure }
        let top = ring.withLock { $0.top }
        guard top == height else {
            throw ImageCoreError(.image, "corrupt JPEG XL: \(height - top) of \(height) rows never decoded")
        }
    }

    /// The index in `received` of row `y`.
    private static func slot(_ y: Int, _ ring: Ring) -> Int {
        (y / chunkRows) % ring.chunks.count * chunkRows + y % chunkRows
    }

    /// The whole rows from `top` on, within one chunk, for the caller to
    /// write, when no other thread is writing; `writing` is then set.
    private func claim(_ ring: inout Ring) -> Run? {
        let top = ring.top
        guard !ring.writing, top < height, ring.received[Self.slot(top, ring)] >= width else { return nil }
        var end = top + 1
        while end < height, end % Self.chunkRows != 0, ring.received[Self.slot(end, ring)] >= width { end += 1 }
        ring.writing = true
        return Run(
            first: top, count: end - top, chunk: ring.chunks[(top / Self.chunkRows) % ring.chunks.count],
            offset: (top % Self.chunkRows) * rowBytes)
    }

    /// More chunks, so that row `y` has one too: the chunks in use keep
    /// their rows (and their memory) and move to their new places.
    private static func grow(_ ring: inout Ring, toHold y: Int, _ rowBytes: Int) {
        let (oldCount, first) = (ring.chunks.count, ring.top / chunkRows)
        let newCount = max(y / chunkRows - first + 1, oldCount + oldCount / 2)
        var chunks = [Chunk?](repeating: nil, count: newCount)
        var received = [Int](repeating: 0, count: newCount * chunkRows)
        for index in first..<(first + oldCount) {
            let (from, to) = (index % oldCount, index % newCount)
            chunks[to] = ring.chunks[from]
            received[(to * chunkRows)..<((to + 1) * chunkRows)] =
                ring.received[(from * chunkRows)..<((from + 1) * chunkRows)]
        }
        ring.chunks = chunks.map { $0 ?? Chunk(bytes: rowBytes * chunkRows) }
        ring.received = received
    }
}
