import Dispatch
import Synchronization

/// A grid's tiles (`HEVCThumbnail`) decoded by libde265 on `workers`
/// threads, the calling one among them, each tile by a decoder of its own
/// (`HEVCPicture`), and shrunk in tile order: a row of tiles is placed into
/// a strip of whole-width Y, Cb and Cr rows, and once every tile of it is
/// there, the strips are shrunk in order by one thread at a time
/// (`AreaResampler.resamplePlane` over the output rows the strip completes),
/// the same arithmetic in the same order as over whole planes, hence the
/// same floats whatever the number of workers or the order tiles finish in.
/// A strip is freed once no output row still needs it, and tiles are taken
/// at most `ahead` tile rows past the last strip shrunk (workers wait for
/// a permit, `DispatchSemaphore`), so a 12 MP phone photo holds two or
/// three strips of 512 rows, not its 18 MB of planes.
///
/// Why threads of our own: libde265 decodes a tile on one thread (its
/// worker threads need wavefront or tiles inside the stream, which phones
/// do not write), and a 12 MP photo is 48 such tiles, 95% of a thumbnail's
/// time.
final class HEVCGridStrips: @unchecked Sendable {
    // Why unchecked: the output planes and the strips' rows are raw memory
    // written by several threads, each piece by one, and read only after
    // the lock has ordered those writes (`place`, `shrinkReady`).
    private let tiles: [HEVCThumbnail.CodedImage]
    private let bytes: [UInt8]
    private let columns: Int
    private let rows: Int
    private let width: Int
    private let height: Int
    private let output: UnsafeMutablePointer<Float>
    private let outWidth: Int
    private let outHeight: Int
    private let workers: Int
    /// Tiles that may be taken before any strip is shrunk; each strip shrunk lets `columns` more in.
    private let firstPermits: Int
    private let permits = DispatchSemaphore(value: 0)
    private let state: Mutex<State>

    /// One plane's geometry, fixed by the first tile decoded.
    struct Plane {
        /// The whole plane (the grid's output size, subsampled) and one tile's piece of it.
        let width: Int
        let height: Int
        let pieceWidth: Int
        let pieceHeight: Int
        let resampler: AreaResampler
    }

    /// The planes' geometry and the chroma subsampling every tile must share.
    struct Layout {
        let subsampling: (x: Int, y: Int)
        let planes: [Plane]
    }

    /// One row of tiles placed: each plane's rows, whole width, cropped at the grid's bottom edge.
    final class Strip: @unchecked Sendable {
        // Why unchecked: see HEVCGridStrips.
        let planes: [UnsafeMutableBufferPointer<UInt8>]

        init(_ layout: Layout, row: Int) {
            planes = layout.planes.map { plane in
                let rows = min(plane.pieceHeight, plane.height - row * plane.pieceHeight)
                return .allocate(capacity: plane.width * rows)
            }
        }

        deinit { for plane in planes { plane.deallocate() } }
    }

    private struct State {
        var nextTile = 0
        var failed = false
        var layout: Layout?
        var colour: (matrix: Int, fullRange: Bool)?
        var strips: [Strip?]
        var placed: [Int]
        /// The next tile row to shrink, and whether a thread is shrinking.
        var nextStrip = 0
        var shrinking = false
        /// Each plane's next output row.
        var nextOutput = [0, 0, 0]
    }

    /// The shrink of `plan`'s grid (`bytes`) into `output`: three planes
    /// of `outWidth` × `outHeight` floats, Y, Cb and Cr.
    init(
        _ plan: HEVCThumbnail, _ bytes: [UInt8], into output: UnsafeMutablePointer<Float>, outWidth: Int,
        outHeight: Int, workers: Int
    ) {
        tiles = plan.tiles
        self.bytes = bytes
        columns = plan.columns
        rows = plan.tiles.count / plan.columns
        (width, height) = (plan.width, plan.height)
        self.output = output
        (self.outWidth, self.outHeight) = (outWidth, outHeight)
        self.workers = max(1, workers)
        // Two rows of tiles ahead, or two tiles a worker for a grid narrower than that.
        firstPermits = max(2 * columns, 2 * self.workers)
        state = Mutex(State(strips: Array(repeating: nil, count: rows), placed: Array(repeating: 0, count: rows)))
    }

    /// Decodes and shrinks every tile; returns the colour (matrix, full
    /// range) the tiles share, or nil if a tile failed, differs from the
    /// others in layout or colour, or has an odd size where its chroma is
    /// subsampled.
    func run() -> (matrix: Int, fullRange: Bool)? {
        for _ in 0..<firstPermits { permits.signal() }
        var threads: [SystemThread] = []
        for _ in 1..<workers {
            // A thread refused leaves its share to the others.
            guard let thread = try? SystemThread.start({ [self] in work() }) else { break }
            threads.append(thread)
        }
        work()
        for thread in threads { thread.join() }
        return state.withLock { state in
            state.failed || state.nextStrip < rows ? nil : state.colour
        }
    }

    /// One worker: takes the next tile while there is one, decodes it, places it.
    private func work() {
        while true {
            permits.wait()
            let index: Int? = state.withLock { state in
                guard !state.failed, state.nextTile < tiles.count else { return nil }
                state.nextTile += 1
                return state.nextTile - 1
            }
            guard let index else { return }
            guard place(index) else {
                state.withLock { $0.failed = true }
                wakeEveryWorker()
                return
            }
            shrinkReady()
        }
    }

    /// Lets every waiting worker see that there is nothing left to take.
    private func wakeEveryWorker() {
        for _ in 0..<workers { permits.signal() }
    }

    /// Tile `index` decoded and copied into its strip; false if it failed
    /// or does not match the tiles before it.
    private func place(_ index: Int) -> Bool {
        let tile = tiles[index]
        let (tileWidth, tileHeight) = (tiles[0].width, tiles[0].height)
        let (row, column) = index.quotientAndRemainder(dividingBy: columns)
        let placed: Bool? = HEVCPicture.decode(tile, bytes) { picture in
            guard let pieces = picture.layout(width: tileWidth, height: tileHeight) else { return false }
            let subsampling = (x: tileWidth / pieces[1].width, y: tileHeight / pieces[1].height)
            guard tileWidth % subsampling.x == 0, tileHeight % subsampling.y == 0 else { return false }
            let tileColour = tile.colour ?? picture.colour
            let found: (Strip, Layout)? = state.withLock { state in
                guard !state.failed, state.colour.map({ $0 == tileColour }) ?? true else { return nil }
                let shape = state.layout ?? layout(subsampling, pieces)
                guard shape.subsampling == subsampling else { return nil }
                state.layout = shape
                state.colour = tileColour
                let strip = state.strips[row] ?? Strip(shape, row: row)
                state.strips[row] = strip
                return (strip, shape)
            }
            guard let (strip, layout) = found else { return false }
            // Outside the lock: each tile writes its own columns of the strip.
            for (number, plane) in layout.planes.enumerated() {
                let left = column * plane.pieceWidth
                let copyWidth = min(plane.pieceWidth, plane.width - left)
                let copyHeight = min(plane.pieceHeight, plane.height - row * plane.pieceHeight)
                let target = strip.planes[number].baseAddress! + left
                for y in 0..<copyHeight {
                    (target + y * plane.width).update(from: picture.row(y, plane: number), count: copyWidth)
                }
            }
            return true
        }
        guard placed == true else { return false }
        state.withLock { $0.placed[row] += 1 }
        return true
    }

    /// The planes' geometry for tiles of `pieces` (each plane's size in one tile).
    private func layout(_ subsampling: (x: Int, y: Int), _ pieces: [(width: Int, height: Int)]) -> Layout {
        Layout(
            subsampling: subsampling,
            planes: pieces.indices.map { index in
                let scale = index == 0 ? (x: 1, y: 1) : subsampling
                let planeWidth = (width + scale.x - 1) / scale.x, planeHeight = (height + scale.y - 1) / scale.y
                return Plane(
                    width: planeWidth, height: planeHeight, pieceWidth: pieces[index].width,
                    pieceHeight: pieces[index].height,
                    resampler: AreaResampler(from: planeWidth, planeHeight, to: outWidth, outHeight))
            })
    }

    /// Shrinks every strip now whole, in order, unless another thread is
    /// doing so (it then takes this one's too: each looks again under the lock).
    private func shrinkReady() {
        var holding = false
        while true {
            let job: (row: Int, strips: [Strip?], layout: Layout, next: [Int])? = state.withLock { state in
                guard holding || !state.shrinking else { return nil }
                guard !state.failed, state.nextStrip < rows, state.placed[state.nextStrip] == columns,
                    let layout = state.layout
                else {
                    state.shrinking = false
                    return nil
                }
                state.shrinking = true
                return (state.nextStrip, Array(state.strips[0...state.nextStrip]), layout, state.nextOutput)
            }
            guard let job else { return }
            holding = true
            var next = job.next
            for (index, plane) in job.layout.planes.enumerated() {
                let available = min((job.row + 1) * plane.pieceHeight, plane.height)
                var end = next[index]
                while end < outHeight && plane.resampler.sourceRows(of: end).upperBound <= available { end += 1 }
                guard end > next[index] else { continue }
                plane.resampler.resamplePlane(outY: next[index]..<end, into: output + index * outWidth * outHeight) {
                    let (strip, y) = $0.quotientAndRemainder(dividingBy: plane.pieceHeight)
                    return UnsafePointer(job.strips[strip]!.planes[index].baseAddress! + y * plane.width)
                }
                next[index] = end
            }
            // The strips before the first still needed by an output row to come are done with.
            let needed = job.layout.planes.indices.map { index in
                let plane = job.layout.planes[index]
                return next[index] < outHeight
                    ? plane.resampler.sourceRows(of: next[index]).lowerBound / plane.pieceHeight : rows
            }.min()!
            let finished: Bool = state.withLock { state in
                for row in 0..<min(needed, job.row + 1) { state.strips[row] = nil }
                state.nextOutput = next
                state.nextStrip = job.row + 1
                return state.nextStrip == rows
            }
            for _ in 0..<columns { permits.signal() }
            if finished { wakeEveryWorker() }
        }
    }
}
