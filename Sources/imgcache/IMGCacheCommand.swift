import ArgumentParser
import ImageCore

/// The command line's root; `ProcessEntry` is the process's entry point.
struct IMGCacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "imgcache",
        abstract: "Fetch images over HTTP into a shared, verified disk cache.",
        discussion: """
            imgcache looks each image up in memory, then in the disk cache, then on the network, and verifies \
            what it downloads (format sniffed from the bytes, header decoded against the limits) before \
            storing it. Identical URLs requested at the same time are downloaded once; at most 6 downloads \
            run at once, all from the first second, over at most as many connections per host \
            (--max-per-host); HTTP/2 streams share a connection over https.

            CACHE: --cache-dir, else $IMGCACHE_DIR, else $XDG_CACHE_HOME/imgcache (if absolute), else \
            ~/.cache/imgcache (~: $HOME, else the password database's home for the user), created with mode 0700 and shared safely by any number of processes. The key \
            is the URL as WHATWG URL parsing reads it (tabs and newlines removed, scheme and host lower-cased, IDNA host, IP address hosts as WHATWG writes them, default port and any user:password@ dropped, \
            non-ASCII path and query bytes percent-encoded, escapes upper-cased, dot segments resolved), without \
            its fragment (see \
            --key-ignore-query, --key-strip-param). Each entry is one file \
            holding the original bytes (what --path prints), with a metadata record holding their XXH3-128 \
            checksum in its extended attribute user.imgcache.entry (a separate .meta file on file systems \
            without user.* attributes); a damaged entry is removed and fetched again. A record that does not \
            fit an attribute (URLs over about 3 KB on ext4) is not stored. imgcache.conf in the cache directory holds settings every \
            process shares: max-age (7d), max-size (none), failed-ttl (24h), memory-limit (256M), and the \
            download options timeout, connect-timeout, max-time, limit-rate, max-per-host, rate and aws-sigv4 (flags \
            override them for one run).

            HTTP CACHING (RFC 9111, private cache): a fresh entry (max-age, else Expires - Date, else 10% \
            of the time since Last-Modified, less the response's Age) is served with no request. A stale one \
            is revalidated with If-None-Match and If-Modified-Since; 304 keeps the bytes and restarts the \
            clock, 200 replaces the entry. no-cache: revalidate on every use; no-store: served, never stored; \
            Vary: an entry matches only the request headers it was stored for; the default Accept header \
            (image/avif,image/jxl,image/webp,image/png,image/jpeg,image/gif,*/*;q=0.5, AVIF and JPEG XL named only when libavif and libjxl \
            are installed; -H 'Accept: ...' replaces it) counts as one value, whatever formats it names, so \
            an entry stored under Vary: Accept with an earlier default stays valid; immutable: not revalidated \
            while fresh, even with --refresh; stale-while-revalidate: served stale, revalidated before exit; \
            stale-if-error (or --stale-if-error): served stale when the origin fails transiently. --offline \
            serves stale entries too, except must-revalidate or no-cache ones (exit 7). Transient failures \
            are retried (--retries, default 2) after an exponential backoff with jitter, or the server's \
            Retry-After up to 30 s; a 429 or 503 with Retry-After also pauses every request to that host \
            for as long (-v says so), while other hosts go on. A download that breaks off is resumed by the \
            next attempt, in the same run or a later one, with Range and If-Range when its validator is \
            strong: an ETag, or a Last-Modified a second or more before Date (partials are kept a day).

            POLITE WARMING: --limit-rate caps the whole run's download rate (all transfers together), \
            --rate N/s or N/m spaces new requests to each host evenly, --max-per-host caps connections.

            REMOTE STORAGE (shared by a fleet, as in ccache): remote-storage = URL [URL...] in imgcache.conf, \
            $IMGCACHE_REMOTE_STORAGE, or --remote-storage URL / --no-remote-storage for one run. URL is \
            http(s)://... (PUT/DELETE, e.g. nginx WebDAV), redis://[user:password@]host[:port][/db] or \
            s3://BUCKET[/PREFIX] (|endpoint=URL, else $AWS_ENDPOINT_URL_S3, else $AWS_ENDPOINT_URL, else \
            the profile's endpoint_url in ~/.aws/config, else AWS's, path-style on a custom endpoint; |region=R, else $AWS_REGION, else $AWS_DEFAULT_REGION, \
            else the profile's region in ~/.aws/config, else us-east-1; credentials from $AWS_ACCESS_KEY_ID, \
            $AWS_SECRET_ACCESS_KEY and $AWS_SESSION_TOKEN, else profile $AWS_PROFILE or default in the \
            shared credentials file ($AWS_SHARED_CREDENTIALS_FILE or ~/.aws/credentials), else in the config \
            file ($AWS_CONFIG_FILE or ~/.aws/config); half a key pair, or a profile neither file has, signs \
            nothing: the store is skipped with one line naming what is missing; every request signed with SigV4), \
            optionally followed by |read-only, |connect-timeout=MS (100), |timeout=MS (1000), \
            |shards=A,B,... and |lease=MS (6000). Lookup: \
            memory, disk, each remote in turn, origin. A remote entry is verified like a download, stored \
            locally and reported as "remote"; a stale one is revalidated with its validators. Verified \
            downloads and 304 renewals are uploaded before exit unless read-only. A remote that fails, stalls \
            or serves a bad entry never fails a fetch: the origin serves. One that is dead or wrong (refused, \
            DNS, TLS, 401, 403, a missing bucket) is skipped for the rest of the run, said once (imgcache: \
            remote storage s3://BUCKET/PREFIX: HTTP 403 SignatureDoesNotMatch, skipped); a timeout, a lost connection \
            or a 408, 429 or 5xx costs only its request (-v says so), as does a refused lookup from a store \
            that answered before, until 3 come in a row, so a store that never answers costs 3 timeouts; a run none \
            of whose uploads to a store went through, answered 5xx, says so once, at its end (imgcache: remote storage URL: \
            no upload went through in this run (PUT URL: HTTP 500 Internal Server Error)). |timeout= bounds \
            each whole request, a lease's at least 10 s (none is asked of a store whose last request timed out \
            or answered 5xx, so a store that stalls costs a download its lookup's timeout, not 20 s more). \
            An S3 GET answered 403 AccessDenied is a miss (S3's answer for a missing key when the policy \
            grants no s3:ListBucket: s3:GetObject and s3:PutObject are all a store needs), unless it was sent \
            unsigned (no credentials found: a private bucket's answer to anyone); credentials S3 \
            refuses (403 SignatureDoesNotMatch, InvalidAccessKeyId, ExpiredToken, ...) end the store at once, \
            even after it answered, and so does an upload refused with AccessDenied (a store a machine may \
            only read is |read-only). \
            Before downloading a URL found nowhere, a machine takes a lease for it in the first \
            writable store that holds leases (Redis; S3, by PUT with If-None-Match: *; HTTP servers that \
            make a collection with MKCOL atomically: Apache mod_dav, nginx with MKCOL in dav_methods; \
            probed once per run) and renews it every third of its time while it downloads; the others \
            wait for its upload, following its renewals, so with default settings a holder that dies delays \
            them by at most 10 s. Passwords and secrets are never shown (***).

            S3 ORIGINS: s3://BUCKET/KEY is a URL like any other for fetch, prefetch, stat and purge (the same \
            endpoint, region and credentials; the cache key is the s3:// URL); a refusal is exit 4 with the \
            S3 error code (HTTP 403 AccessDenied). --aws-sigv4 signs http(s) requests as curl's option does, \
            with -u KEY:SECRET (else the AWS credentials above); aws-sigv4 = ... in imgcache.conf does the same.

            FAILED URLS: an HTTP error status, a body that is not an image, a corrupt image or one over a \
            limit puts the URL on the failed list for failed-ttl; it is not requested again (exit 6) unless \
            --retry-failed is given. Network errors (DNS, connect, TLS, timeout, connection lost) and HTTP \
            408, 429, 500, 502, 503 and 504 are transient and never recorded, nor is S3's 403 \
            RequestTimeTooSkewed, a refusal of this machine's clock (said in its line), not of the URL.

            LIMITS: a download gives up after 15 s without a byte (--timeout, the stall timeout), 10 s to \
            connect (--connect-timeout), no total cap unless --max-time; 64 MiB per body (--max-bytes), \
            10 redirects, to http and https only; images up to 100 megapixels per frame and 1000 frames. Limits belong to the run: a cached \
            entry over this run's limits is exit 5 and stays; a failure caused by a limit stricter than the \
            defaults is not put on the failed list, and one under the defaults is retried by a run with a higher limit.

            FORMATS: JPEG, PNG and animated PNG (APNG), GIF, WebP (still and animated), AVIF (still and \
            image sequences, 8/10/12-bit written as 8-bit, irot/imir applied; libavif is loaded only when \
            an AVIF is met), HEIC/HEIF (libheif: the primary image with irot, imir and clap applied, grids, \
            alpha (one of another size than the image is left out, as libheif and heif-convert leave \
            it), 10-bit written as 8-bit; an embedded thumbnail at least the size asked for is used for \
            --thumbnail; libheif is loaded only when a HEIF is met), JPEG XL (libjxl: stills and \
            animations, loaded only when a JPEG XL is met). Sniffed and refused as unsupported \
            (exit 5): TIFF, BMP. \
            --thumbnail, --max-pixels and --encode of an animation keep every frame, its duration and the \
            loop count unless --frame picks one (--encode jpeg: the first frame); without --encode the \
            output keeps the original's kind: GIF (the source's colour table; see ANIMATED THUMBNAILS), APNG, \
            animated WebP (WebPAnimEncoder), AVIF (libavif at speed 10, the fastest; sequences loop forever), \
            JPEG XL; a HEIC's \
            thumbnail and re-encoding are JPEG unless --encode names another (imgcache ships no HEVC encoder); \
            JPEG has no alpha: a HEIC with alpha loses it there (the colour under it shows), --encode png or webp keeps it.

            EXIT STATUS: 0 ok, 1 other failure or a mix of kinds, 3 network, 4 http, 5 image, 6 failed \
            before, 7 not cached, 8 cache I/O (the cache cannot be opened, or prefetch, clean or purge cannot \
            write it; fetch delivers what it cannot store, with a warning), 23 output (stdout or an output file could not be written: \
            "imgcache: write error: No space left on device"), 64 usage, 130 interrupted. Every error prints one line on \
            stderr: "imgcache: URL: what happened".
            """,
        version: ImageCoreVersion.string,
        subcommands: [Fetch.self, Prefetch.self, Stat.self, Clean.self, Purge.self]
    )
}
