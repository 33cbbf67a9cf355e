// The mirrors `dump()` and `"\(request)"` use: a request carries `-u`'s
// password, an S3 secret, authorization and cookie headers and a proxy's
// password, none of which may be shown (`SecretRedaction`).

extension HTTPHeader: CustomReflectable {
    /// Name and value; the value masked for a credential (`Authorization`, `Cookie`…).
    public var customMirror: Mirror {
        Mirror(
            self,
            children: ["name": name, "value": SecretRedaction.isSecretHeader(name) ? SecretRedaction.mask : value],
            displayStyle: .struct)
    }
}

extension DownloadRequest: CustomReflectable {
    /// Every field, with `credentials` masked, the URL's and the proxy's
    /// passwords masked, headers as `HTTPHeader`'s mirror shows them, and
    /// the upload body as its size.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "url": RemoteStorageURL.masked(url), "method": method,
                "uploadBody": uploadBody.map { "\($0.count) bytes" } as Any, "expectsImage": expectsImage,
                "keepsBodyInMemory": keepsBodyInMemory, "headers": headers,
                "credentials": SecretRedaction.masked(credentials) as Any, "awsSigV4": awsSigV4 as Any,
                "timeout": timeout as Any, "connectTimeout": connectTimeout as Any, "maxTime": maxTime as Any,
                "isPaced": isPaced, "maxBytes": maxBytes, "maxRedirects": maxRedirects,
                "allowsInsecureTLS": allowsInsecureTLS, "proxy": SecretRedaction.maskedURL(proxy) as Any,
                "priority": priority, "resumableBodyPath": resumableBodyPath as Any,
                "onProgress": onProgress == nil ? "nil" : "a closure",
            ], displayStyle: .struct)
    }
}
