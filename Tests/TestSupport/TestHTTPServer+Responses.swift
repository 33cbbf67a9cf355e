import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The answers a route can give, faults included, and how each goes on the
/// wire: the server's fault catalogue (a stall, a body cut short, a wrong
/// length, chunks, a trickle, ranges).
extension TestHTTPServer {
    /// What a route answers.
    package enum Response: Sendable {
        /// 200 with a correct Content-Length; fresh for an hour unless
        /// `headers` say otherwise (pass `[:]` for no caching headers).
        case ok([UInt8], headers: [String: String] = ["Cache-Control": "max-age=3600"])
        /// Any status with a body.
        case status(Int, body: [UInt8] = [], headers: [String: String] = [:])
        /// A redirect to an absolute or relative location.
        case redirect(to: String, status: Int = 302)
        /// Reads the request and answers nothing for this long.
        case stall(seconds: Double)
        /// Headers with the full Content-Length, then `afterBytes` bytes, then close.
        case closeEarly([UInt8], afterBytes: Int)
        /// Headers with the full Content-Length, then `afterBytes` bytes,
        /// then nothing for `seconds`.
        case stallMidBody([UInt8], afterBytes: Int, seconds: Double)
        /// Declares `declared` bytes, sends the body, closes.
        case wrongContentLength([UInt8], declared: Int)
        /// Transfer-Encoding: chunked.
        case chunked([UInt8], chunkSize: Int)
        /// Sends the body slowly.
        case trickle([UInt8], bytesPerSecond: Int, headers: [String: String] = [:])
        /// 200 text/html.
        case html(String)
        /// A resource that honours `Range: bytes=N-` with 206 unless
        /// `If-Range` names another validator than its own: its ETag, or
        /// without one its Last-Modified (sent with Date; "now" makes the
        /// two equal, a weak validator). With `cutAfter`, the connection
        /// closes after that many body bytes, after `stallAtCut` seconds of silence.
        case ranged(
            [UInt8], etag: String?, lastModified: String? = nil, cutAfter: Int? = nil, stallAtCut: Double = 0)
    }

    /// Sends a response; returns whether the connection may be reused.
    func respond(_ client: Int32, _ request: Request, _ response: Response) -> Bool {
        let body = request.method == "HEAD"
        switch response {
        case .ok(let bytes, let headers):
            return send(client, head(200, headers, length: bytes.count) + (body ? [] : bytes))
        case .status(let code, let bytes, let headers):
            let sendsBody = !body && code != 304 && code != 204
            return send(client, head(code, headers, length: sendsBody ? bytes.count : nil) + (sendsBody ? bytes : []))
        case .redirect(let location, let code):
            return send(client, head(code, ["Location": location], length: 0))
        case .html(let text):
            let bytes = Array(text.utf8)
            return send(client, head(200, ["Content-Type": "text/html"], length: bytes.count) + bytes)
        case .stall(let seconds):
            pause(seconds)
            return false
        case .closeEarly(let bytes, let count):
            _ = send(client, head(200, [:], length: bytes.count) + Array(bytes.prefix(count)))
            return false
        case .stallMidBody(let bytes, let count, let seconds):
            _ = send(client, head(200, [:], length: bytes.count) + Array(bytes.prefix(count)))
            pause(seconds)
            return false
        case .wrongContentLength(let bytes, let declared):
            _ = send(client, head(200, [:], length: declared) + bytes)
            return false
        case .chunked(let bytes, let size):
            guard send(client, head(200, ["Transfer-Encoding": "chunked"], length: nil)) else { return false }
            var offset = 0
            while offset < bytes.count {
                let chunk = Array(bytes[offset..<min(bytes.count, offset + size)])
                guard send(client, Array("\(String(chunk.count, radix: 16))\r\n".utf8) + chunk + Array("\r\n".utf8))
                else {
                    return false
                }
                offset += size
            }
            return send(client, Array("0\r\n\r\n".utf8))
        case .ranged(let bytes, let etag, let lastModified, let cutAfter, let stallAtCut):
            let date = Self.httpDate(Date())
            let modified = lastModified == "now" ? date : lastModified
            var start = 0
            if let range = request.header("Range"), range.hasPrefix("bytes="), range.hasSuffix("-"),
                let offset = Int(range.dropFirst(6).dropLast()), offset < bytes.count,
                request.header("If-Range").map({ $0 == etag ?? modified }) ?? true
            {
                start = offset
            }
            var headers = ["Date": date]
            if let etag { headers["ETag"] = etag }
            if let modified { headers["Last-Modified"] = modified }
            if start > 0 { headers["Content-Range"] = "bytes \(start)-\(bytes.count - 1)/\(bytes.count)" }
            let body = Array(bytes[start...])
            var response = head(start > 0 ? 206 : 200, headers, length: body.count)
            response += cutAfter.map { Array(body.prefix($0)) } ?? body
            let sent = send(client, response)
            if cutAfter != nil && stallAtCut > 0 { pause(stallAtCut) }
            return sent && cutAfter == nil
        case .trickle(let bytes, let rate, let headers):
            guard send(client, head(200, headers, length: bytes.count)) else { return false }
            let step = max(1, rate / 20)
            var offset = 0
            while offset < bytes.count && !isStopped {
                guard send(client, Array(bytes[offset..<min(bytes.count, offset + step)])) else { return false }
                offset += step
                pause(Double(step) / Double(rate))
            }
            return true
        }
    }
}
