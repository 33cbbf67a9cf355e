import ArgumentParser

@main
struct IMGCacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "imgcache")
}
