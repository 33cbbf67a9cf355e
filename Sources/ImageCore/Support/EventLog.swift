/// Where the core reports events for `--verbose`: request started, response
/// received, served from memory or disk, evicted. The sink decides where the
/// line goes; the core only describes.
public struct EventLog: Sendable {
    private let sink: (@Sendable (String) -> Void)?

    /// A log that sends each event line to `sink`.
    public init(_ sink: @escaping @Sendable (String) -> Void) {
        self.sink = sink
    }

    private init() {
        sink = nil
    }

    /// A log that drops everything.
    public static let silent = EventLog()

    /// Reports one event.
    public func emit(_ line: @autoclosure () -> String) {
        sink?(line())
    }
}
