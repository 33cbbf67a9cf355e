import ImageCore
import Synchronization

/// A one-line progress display on stderr, redrawn at most ten times a second,
/// fitted to the terminal's width, and cleared at the end so no partial line
/// is left behind. It uses no colour; with TERM=dumb it uses no escape
/// sequences either (it pads with spaces instead of erasing).
final class ProgressBar: Sendable {
    /// What to show.
    struct State: Sendable {
        /// Items finished, and their total once known.
        var done: Int
        var total: Int?
        /// Counts or other words shown after the bar.
        var detail: String
        /// Bytes received, and the bytes expected when every size is known:
        /// then the bar and the ETA follow bytes rather than items.
        var bytes: Int
        var bytesExpected: Int? = nil
        /// Bytes still to come, when they can be estimated: the ETA follows
        /// them at the recent rate.
        var bytesRemaining: Int? = nil

        /// What part of the work is done, for the bar: by bytes when they are
        /// known (every size announced, or bytes still expected while some are
        /// coming: a first wave of slow transfers fills the bar as it arrives),
        /// else by items; nil when there is no total.
        var fraction: Double? {
            if let expected = bytesExpected, expected > 0 { return Double(bytes) / Double(expected) }
            if let remaining = bytesRemaining, remaining > 0 {
                return Double(bytes) / Double(bytes + remaining)
            }
            guard let total = total, total > 0 else { return nil }
            return Double(done) / Double(total)
        }
    }

    private struct Drawing {
        /// Seconds since `start`; minus infinity so the next update draws.
        var lastDraw = -Double.infinity
        var lastWidth = 0
        var visible = false
        /// Set by `finish()`: no drawing after it (a late update from a
        /// background download must not redraw under the summary).
        var finished = false
        var latest: State?
        /// (seconds since start, bytes) at most a few seconds back, for the recent rate.
        var samples: [(time: Double, bytes: Int)] = []
    }

    /// How far back the rate looks: long enough to smooth bursts, short
    /// enough to follow a link that slows down.
    private static let rateWindow = 3.0

    private let drawing = Mutex(Drawing())
    private let start = ContinuousClock.now
    private let dumbTerminal: Bool

    init(environment: [String: String]) {
        dumbTerminal = environment["TERM"] == "dumb"
    }

    /// Records the new state; redraws if the last drawing is old enough.
    func update(_ state: State) {
        drawing.withLock { drawing in
            guard !drawing.finished else { return }
            drawing.latest = state
            let now = secondsSinceStart()
            guard now - drawing.lastDraw >= 0.1 else { return }
            drawing.lastDraw = now
            draw(state, &drawing)
        }
    }

    /// Runs `body` while a timer redraws `bar` four times a second, so the
    /// rate and ETA keep moving while transfers stall.
    static func redrawing<T>(_ bar: ProgressBar?, during body: () async -> T) async -> T {
        let ticker = bar.map { bar in
            Task { while (try? await Task.sleep(for: .milliseconds(250))) != nil { bar.tick() } }
        }
        let result = await body()
        ticker?.cancel()
        await ticker?.value
        return result
    }

    /// Redraws the latest state (the rate and ETA move on while transfers
    /// stall); called by the timer of `redrawing`.
    private func tick() {
        drawing.withLock { drawing in
            guard !drawing.finished, let state = drawing.latest else { return }
            let now = secondsSinceStart()
            guard now - drawing.lastDraw >= 0.2 else { return }
            drawing.lastDraw = now
            draw(state, &drawing)
        }
    }

    /// Erases the line (before an error message is printed, say); the next
    /// update draws it again.
    func clear() {
        drawing.withLock { erase(&$0) }
    }

    /// Erases the bar and runs `write` (which prints a line to the terminal)
    /// with no redraw in between, so the line starts at the left margin
    /// instead of after the bar; the next update draws the bar again below it.
    func writeAbove(_ write: () -> Void) {
        drawing.withLock { drawing in
            erase(&drawing)
            write()
        }
    }

    /// Draws the final state, then erases the line.
    func finish() {
        drawing.withLock { drawing in
            erase(&drawing)
            drawing.finished = true
        }
    }

    private func secondsSinceStart() -> Double {
        let elapsed = start.duration(to: .now).components
        return Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
    }

    private func draw(_ state: State, _ drawing: inout Drawing) {
        let now = secondsSinceStart()
        let elapsed = max(now, 0.001)
        drawing.samples.append((now, state.bytes))
        drawing.samples.removeAll { $0.time < now - Self.rateWindow }
        // Bytes per second over the last few seconds; since the start while
        // the window holds less than a second.
        let oldest = drawing.samples.first.flatMap { now - $0.time >= 1 ? $0 : nil } ?? (time: 0, bytes: 0)
        let rate = Double(state.bytes - oldest.bytes) / max(now - oldest.time, 0.001)
        // Each part with the order in which it is dropped when the terminal
        // is too narrow (0 = kept longest): bar, counts and ETA matter most.
        var parts: [(text: String, dropOrder: Int)] = []
        let (done, total) = (state.done, state.total ?? 0)
        if let fraction = state.fraction {
            let filled = min(20, Int(fraction * 20))
            parts.append(
                ("[" + String(repeating: "=", count: filled) + String(repeating: " ", count: 20 - filled) + "]", 1))
        }
        if let expected = state.bytesExpected {
            parts.append(("\(Quantities.formatSize(state.bytes)) / \(Quantities.formatSize(expected))", 0))
        } else {
            parts.append((state.total.map { "\(state.done)/\($0)" } ?? "\(state.done) done", 0))
            parts.append(("\(Quantities.formatSize(state.bytes))", 3))
        }
        if !state.detail.isEmpty { parts.append((state.detail, 4)) }
        parts.append(("\(Quantities.formatSize(Int(rate)))/s", 2))
        if let remaining = state.bytesRemaining, remaining > 0, rate > 0 {
            parts.append(("ETA \(Self.clock(Double(remaining) / rate))", 0))
        } else if total > 0, done > 0, done < total {
            let remaining = elapsed / Double(done) * Double(total - done)
            parts.append(("ETA \(Self.clock(remaining))", 0))
        }
        let width = (StandardStreams.terminalColumns(2) ?? 80) - 1
        func joined() -> String { parts.map(\.text).joined(separator: "  ") }
        var line = joined()
        while line.count > width,
            let drop = parts.indices.filter({ parts[$0].dropOrder > 0 })
                .max(by: { parts[$0].dropOrder < parts[$1].dropOrder })
        {
            parts.remove(at: drop)
            line = joined()
        }
        if line.count > width { line = String(line.prefix(max(width, 0))) }
        let padding = dumbTerminal ? String(repeating: " ", count: max(0, drawing.lastWidth - line.count)) : ""
        let erase = dumbTerminal ? "\r" : "\r\u{1B}[K"
        StandardStreams.writeError(erase + line + padding)
        drawing.lastWidth = line.count
        drawing.visible = true
    }

    private func erase(_ drawing: inout Drawing) {
        guard drawing.visible else { return }
        let erase = dumbTerminal ? "\r" + String(repeating: " ", count: drawing.lastWidth) + "\r" : "\r\u{1B}[K"
        StandardStreams.writeError(erase)
        drawing.visible = false
        drawing.lastDraw = -.infinity
    }

    private static func clock(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        let (minutes, secs) = (whole / 60, whole % 60)
        return "\(minutes):\(secs < 10 ? "0" : "")\(secs)"
    }
}
