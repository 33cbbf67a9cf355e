import ArgumentParser
import Foundation
import Testing

@testable import imgcache

/// The option tables read before swift-argument-parser runs
/// (`ArgumentNormalizer`, `FetchPlan`, `PrefetchPlan`, `CleanPlan`) against the parser's own
/// definitions, as it describes them (`_dumpHelp`'s ToolInfo), not its help
/// text: the same names, and a value exactly where the parser takes one.
/// The tables are not built from the parser at run time: the warm hit
/// never loads it (docs/ARCHITECTURE.md, "One warm hit").
@Suite struct OptionTablesTests {
    /// One argument as the parser defines it.
    struct Defined: Hashable {
        var names: Set<String>
        var takesValue: Bool
    }

    /// Every named argument of a command and its subcommands, from its ToolInfo.
    static func defined(_ toolInfo: String) throws -> [Defined] {
        let tool = try #require(try JSONSerialization.jsonObject(with: Data(toolInfo.utf8)) as? [String: Any])
        var found: [Defined] = []
        func walk(_ command: [String: Any]) {
            for argument in command["arguments"] as? [[String: Any]] ?? [] {
                let names = (argument["names"] as? [[String: String]] ?? []).map { name in
                    (name["kind"] == "short" ? "-" : "--") + (name["name"] ?? "")
                }
                if !names.isEmpty && !names.contains("--help") {
                    found.append(Defined(names: Set(names), takesValue: argument["kind"] as? String == "option"))
                }
            }
            for subcommand in command["subcommands"] as? [[String: Any]] ?? [] { walk(subcommand) }
        }
        walk(try #require(tool["command"] as? [String: Any]))
        return found
    }

    /// The global options alone, as a command of their own.
    struct Globals: ParsableCommand {
        @OptionGroup var global: GlobalOptions<IMGCacheCommand.Fetch>
    }

    @Test func theShortOptionsTakingAValueAreTheParsers() throws {
        let letters = try Self.defined(IMGCacheCommand._dumpHelp()).filter(\.takesValue).flatMap(\.names)
            .filter { $0.count == 2 }.map { $0.last! }
        #expect(Set(letters) == Set(ArgumentNormalizer.shortOptionsTakingValue))
    }

    @Test func theGlobalOptionsAreTheParsers() throws {
        let globals = try Self.defined(Globals._dumpHelp())
        #expect(Set(globals.filter(\.takesValue).flatMap(\.names)) == Set(ArgumentNormalizer.globalOptionsTakingValue))
        #expect(Set(globals.filter { !$0.takesValue }.flatMap(\.names)) == Set(ArgumentNormalizer.globalFlags))
    }

    @Test func theFetchPlansOptionsAreFetchsOwn() throws {
        let fetch = Set(try Self.defined(IMGCacheCommand.Fetch._dumpHelp()))
        for option in FetchPlan.options {
            #expect(fetch.contains(Defined(names: Set(option.names), takesValue: option.takesValue)), "\(option.names)")
        }
    }

    @Test func thePrefetchPlansOptionsArePrefetchsOwn() throws {
        let prefetch = Set(try Self.defined(IMGCacheCommand.Prefetch._dumpHelp()))
        for option in PrefetchPlan.options {
            #expect(
                prefetch.contains(Defined(names: Set(option.names), takesValue: option.takesValue)), "\(option.names)")
        }
    }

    @Test func theCleanPlansOptionsAreCleansOwn() throws {
        let clean = Set(try Self.defined(IMGCacheCommand.Clean._dumpHelp()))
        for option in CleanPlan.options {
            #expect(clean.contains(Defined(names: Set(option.names), takesValue: option.takesValue)), "\(option.names)")
        }
    }

    /// `SubcommandOptions`, which `OptionScan` reads a line with before the
    /// parser, names every option of each subcommand and nothing else: a
    /// missing one would be refused as unknown, an extra one let through.
    @Test func eachSubcommandsFullTableIsTheParsers() throws {
        let builtIn = Set(SubcommandOptions.builtIn.map { Defined(names: Set($0.names), takesValue: $0.takesValue) })
        for command in IMGCacheCommand.configuration.subcommands where command._commandName != "help" {
            let name = command._commandName
            let table = try #require(SubcommandOptions.options(of: name))
            let ours = Set(table.map { Defined(names: Set($0.names), takesValue: $0.takesValue) })
            #expect(ours.count == table.count, "\(name): an option listed twice")
            let parsers = Set(try Self.defined(command._dumpHelp()))
            #expect(ours.subtracting(builtIn) == parsers.subtracting(builtIn), "\(name)")
        }
        #expect(SubcommandOptions.options(of: "help") == nil)
    }
}
