import ImageCore

extension StandardStreams {
    /// Writes a line to stdout (or stderr), first erasing `progress` when
    /// the line goes to the terminal the bar is drawn on.
    static func print(_ line: String, toStderr: Bool = false, above progress: ProgressBar?) {
        let output = { toStderr ? printError(line) : print(line) }
        if let progress, toStderr || isTerminal(1) { progress.writeAbove(output) } else { output() }
    }
}
