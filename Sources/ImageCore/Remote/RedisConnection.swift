internal import CHiredis
internal import CImageCoreShims

#if canImport(Glibc)
    import Glibc
#endif

/// One connection to a Redis server: owns a hiredis `redisContext`, freed in
/// `deinit`. Blocking: call it off the cooperative pool (`runInBackground`).
///
/// Why `@unchecked Sendable`: a connection is used by one caller at a time;
/// `RedisRemoteStorage` takes it out of its pool for the length of a command.
final class RedisConnection: @unchecked Sendable {
    /// A reply, reduced to what imgcache uses.
    enum Reply: Equatable {
        case string([UInt8])
        case integer(Int)
        case status(String)
        case missing
    }

    private let context: UnsafeMutablePointer<redisContext>
    /// Each command's timeout, in seconds, for the message when one runs out.
    private let timeout: Double

    /// Connects with `connectTimeout`, then sets `timeout` for every command.
    /// The corresponding C functions are `redisConnectWithTimeout` and `redisSetTimeout`.
    init(host: String, port: Int, connectTimeout: Double, timeout: Double) throws {
        self.timeout = timeout
        // hiredis loaded here, not by its first forwarder, so that a missing
        // one is this store's failure (skipped, the origin serves) rather than
        // the end of the process. The corresponding C function is `imgcache_hiredis_library_load`.
        var message = [CChar](repeating: 0, count: 256)
        guard imgcache_hiredis_library_load(&message) == 0 else {
            throw ImageCoreError(
                .network, String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        guard let context = redisConnectWithTimeout(host, Int32(port), Self.makeTimeval(connectTimeout)) else {
            throw ImageCoreError(.network, "cannot allocate a Redis connection")
        }
        self.context = context
        if context.pointee.err != 0 { throw failure() }
        if redisSetTimeout(context, Self.makeTimeval(timeout)) != 0 { throw failure() }
    }

    deinit {
        redisFree(context)
    }

    /// Whether the connection broke; a broken one is not reused.
    var isBroken: Bool { context.pointee.err != 0 }

    /// Runs one command with binary-safe arguments. A Redis error reply is
    /// thrown. The corresponding C function is `redisCommandArgv`.
    func command(_ arguments: [[UInt8]]) throws -> Reply {
        // hiredis wants one C pointer per argument; copies keep them valid for the call.
        let copies = arguments.map { bytes -> UnsafeMutableRawBufferPointer in
            let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, bytes.count), alignment: 1)
            bytes.withUnsafeBytes { copy.copyMemory(from: $0) }
            return copy
        }
        defer { copies.forEach { $0.deallocate() } }
        var pointers: [UnsafePointer<CChar>?] = copies.map {
            UnsafePointer($0.baseAddress!.assumingMemoryBound(to: CChar.self))
        }
        let lengths = arguments.map(\.count)
        guard let raw = redisCommandArgv(context, Int32(arguments.count), &pointers, lengths) else { throw failure() }
        defer { freeReplyObject(raw) }
        let reply = raw.assumingMemoryBound(to: redisReply.self).pointee
        let text = { reply.str.map { Array(UnsafeRawBufferPointer(start: $0, count: reply.len)) } ?? [] }
        switch reply.type {
        case REDIS_REPLY_STRING: return .string(text())
        case REDIS_REPLY_INTEGER: return .integer(Int(reply.integer))
        case REDIS_REPLY_STATUS: return .status(String(decoding: text(), as: UTF8.self))
        case REDIS_REPLY_NIL: return .missing
        case REDIS_REPLY_ERROR: throw ImageCoreError(.network, "Redis: \(String(decoding: text(), as: UTF8.self))")
        default: throw ImageCoreError(.network, "Redis: unexpected reply type \(reply.type)")
        }
    }

    /// The context's error, as hiredis describes it (never with a password).
    /// A timeout (hiredis 1.x: an I/O error with `EAGAIN`, its socket's
    /// timeout) and a connection the server closed are faults that may pass.
    private func failure() -> ImageCoreError {
        let fault = errno
        let message = withUnsafeBytes(of: context.pointee.errstr) { buffer in
            String(decoding: buffer.prefix { $0 != 0 }, as: UTF8.self)
        }
        var error = ImageCoreError(.network, "Redis: \(message.isEmpty ? "error \(context.pointee.err)" : message)")
        switch (context.pointee.err, fault) {
        case (REDIS_ERR_IO, EAGAIN):
            // hiredis says only strerror(EAGAIN), "Resource temporarily unavailable": say what happened.
            error = ImageCoreError(.network, "Redis: timed out (no answer in \(Int((timeout * 1000).rounded())) ms)")
            error.transportFault = .timedOut
        case (REDIS_ERR_IO, ETIMEDOUT): error.transportFault = .timedOut
        case (REDIS_ERR_EOF, _), (REDIS_ERR_IO, ECONNRESET), (REDIS_ERR_IO, EPIPE):
            error.transportFault = .connectionLost
        default: break
        }
        return error
    }

    private static func makeTimeval(_ seconds: Double) -> timeval {
        let micro = Int((seconds * 1_000_000).rounded())
        return timeval(tv_sec: micro / 1_000_000, tv_usec: micro % 1_000_000)
    }
}
