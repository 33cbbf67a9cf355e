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
    /// The sink, touched only by the thread holding `JXLRowRing.writing` (or
    /// by the decoding thread once libjxl has returned, through `sink`).
    private var rowSink: Sink
    private let width: Int
    private let height: Int
    private let rowBytes: Int
    // Why the ring is not nested in this generic class: a type nested in it
    // is generic too, and each piece then looked up its metadata at run
    // time (200 M instructions for a 20 MP decode, callgrind).
    private let ring: Mutex<JXLRowRing>

    init(_ sink: Sink, width: Int, height: Int, channels: Int) {
        rowSink = sink
        self.width = width
        self.height = height
        rowBytes = width * channels
        ring = Mutex(JXLRowRing(rowBytes: width * channels, rows: min(height, 256)))
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
        let (width, height, channels) = (width, height, channels)
        let target: (chunk: JXLRowChunk, offset: Int)? = ring.withLock { ring in
            guard y >= ring.top, y < height, x >= 0, x + count <= width else { return nil }
            return ring.place(y, x * channels)
        }
        guard let target else { return fail(outside: (x, y, count)) }
        Self.quantize(
            pixels, count: count * channels,
            into: target.chunk.bytes.assumingMemoryBound(to: UInt8.self) + target.offset)
        var run = ring.withLock { ring in
            ring.received[ring.slot(y)] += count
            return ring.claim(width: width, height: height)
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
                ring.handedOn(claimed)
                return error == nil ? ring.claim(width: width, height: height) : nil
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
}

/// Rows memory of a `JXLRowBand`: one chunk of `JXLRowRing.chunkRows` rows, freed with the last reference.
final class JXLRowChunk: @unchecked Sendable {
    let bytes: UnsafeMutableRawPointer
    init(bytes count: Int) { bytes = .allocate(byteCount: count, alignment: 16) }
    deinit { bytes.deallocate() }
}

/// What a `JXLRowBand`'s lock guards: the chunks of rows not yet handed on.
struct JXLRowRing {
    /// Rows per chunk: the most the sink is handed at once.
    static var chunkRows: Int { 16 }

    let rowBytes: Int
    /// Row `y` lives in chunk `(y / chunkRows) % chunks.count`.
    private var chunks: [JXLRowChunk]
    /// Pixels received, per row slot (`chunkRows` per chunk, in chunk order).
    var received: [Int]
    /// The first row not yet handed on.
    private(set) var top = 0
    /// True while a thread hands rows to the sink.
    private var writing = false

    /// Whole rows claimed for the sink: `count` rows from `first`, at `offset` in `chunk`.
    struct Run {
        let first: Int
        let count: Int
        let chunk: JXLRowChunk
        let offset: Int
    }

    /// Chunks enough for `rows` rows of `rowBytes`.
    init(rowBytes: Int, rows: Int) {
        self.rowBytes = rowBytes
        let count = (rows + Self.chunkRows - 1) / Self.chunkRows
        chunks = (0..<count).map { _ in JXLRowChunk(bytes: rowBytes * Self.chunkRows) }
        received = [Int](repeating: 0, count: count * Self.chunkRows)
    }

    /// Where byte `offset` of row `y` (not before `top`) goes, the ring grown to hold it if need be.
    mutating func place(_ y: Int, _ offset: Int) -> (chunk: JXLRowChunk, offset: Int) {
        if y / Self.chunkRows - top / Self.chunkRows >= chunks.count { grow(toHold: y) }
        return (chunks[(y / Self.chunkRows) % chunks.count], (y % Self.chunkRows) * rowBytes + offset)
    }

    /// The index in `received` of row `y`.
    func slot(_ y: Int) -> Int {
        (y / Self.chunkRows) % chunks.count * Self.chunkRows + y % Self.chunkRows
    }

    /// The whole rows from `top` on, within one chunk, for the caller to
    /// write, when no other thread is writing; `writing` is then set.
    mutating func claim(width: Int, height: Int) -> Run? {
        guard !writing, top < height, received[slot(top)] >= width else { return nil }
        var end = top + 1
        while end < height, end % Self.chunkRows != 0, received[slot(end)] >= width { end += 1 }
        writing = true
        return Run(
            first: top, count: end - top, chunk: chunks[(top / Self.chunkRows) % chunks.count],
            offset: (top % Self.chunkRows) * rowBytes)
    }

    /// `run` is written: its rows' slots are free again.
    mutating func handedOn(_ run: Run) {
        for row in run.first..<(run.first + run.count) { received[slot(row)] = 0 }
        top = run.first + run.count
        writing = false
    }

    /// More chunks, so that row `y` has one too: the chunks in use keep
    /// their rows (and their memory) and move to their new places.
    private mutating func grow(toHold y: Int) {
        let (oldCount, first, rows) = (chunks.count, top / Self.chunkRows, Self.chunkRows)
        let newCount = max(y / rows - first + 1, oldCount + oldCount / 2)
        var moved = [JXLRowChunk?](repeating: nil, count: newCount)
        var newReceived = [Int](repeating: 0, count: newCount * rows)
        for index in first..<(first + oldCount) {
            let (from, to) = (index % oldCount, index % newCount)
            moved[to] = chunks[from]
            newReceived[(to * rows)..<((to + 1) * rows)] = received[(from * rows)..<((from + 1) * rows)]
        }
        chunks = moved.map { $0 ?? JXLRowChunk(bytes: rowBytes * rows) }
        received = newReceived
    }
}
