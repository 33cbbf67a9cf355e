/// Easy handles whose transfers have ended, kept by the loop thread for the
/// next transfers: a kept one costs a fraction of `curl_easy_init` and
/// `curl_easy_cleanup` (about 14 k instructions a URL by callgrind, 6 % of a
/// cold URL), and keeps its options for a next transfer with the same
/// (`CurlEasyHandle.TransferOptions`; `apply` resets it for any other). At most as many as ran at once (each
/// kept one is taken before a new one is made), so idle handles never
/// outnumber the download slots. Only the loop thread touches it.
struct IdleEasyHandles {
    /// Whether handles are kept at all. Not with a cookie jar: libcurl
    /// writes the jar when a handle that names it is cleaned up, and a reset
    /// forgets the name, so the run's last transfer would not write it.
    private let keeps: Bool
    private var handles: [CurlEasyHandle] = []

    init(keeps: Bool) {
        self.keeps = keeps
    }

    /// A kept handle, with its last transfer's options; else a new one; nil
    /// if libcurl cannot make one.
    /// The corresponding C function is `curl_easy_init`.
    mutating func take() -> CurlEasyHandle? {
        handles.popLast() ?? CurlEasyHandle()
    }

    /// Keeps the handle of a transfer that has finished (out of the multi
    /// handle, its outcome read), options and all; or lets it go.
    mutating func put(_ easy: CurlEasyHandle) {
        guard keeps else { return }
        handles.append(easy)
    }

    /// Frees every kept handle (`curl_easy_cleanup`), before the multi handle goes.
    mutating func removeAll() {
        handles.removeAll()
    }
}
