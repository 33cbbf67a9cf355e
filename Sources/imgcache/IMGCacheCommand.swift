import ArgumentParser
import ImageCore

@main
struct IMGCacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "imgcache",
        abstract: "Fetch images over HTTP into a shared, verified disk cache.",
        discussion: """
            imgcache looks each image up in memory, then in the disk cache, then on the network; \
            it verifies what it downloads (format sniffed from the bytes, header decoded) before storing it. \
            Exit status: 0 ok, 1 failure or mixed, 3 network, 4 http, 5 image, 6 failed-before, \
            7 not-cached, 8 cache-io, 64 usage, 130 interrupted.
            """,
        version: ImageCoreVersion.string,
        subcommands: [Fetch.self, Prefetch.self, Stat.self, Clean.self, Purge.self]
    )
}
