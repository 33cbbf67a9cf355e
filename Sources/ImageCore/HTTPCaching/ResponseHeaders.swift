/// The header fields of a response that imgcache reads (validators,
/// freshness, Vary, Content-Type, Content-Range, Retry-After, S3's bucket
/// region), each in its own slot: the names are a closed set, `Name`, so a
/// field is found by its number, where a dictionary keyed by the name hashed
/// a string at every insert and look-up (19 hashes a cold URL, 5 k of its
/// 271 k instructions).
public struct ResponseHeaders: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    /// The fields kept. A field read anywhere must have a case here, or it
    /// never arrives.
    public enum Name: Int, CaseIterable, Sendable {
        case age, cacheControl, contentRange, contentType, date, etag, expires, lastModified, retryAfter, vary
        case amzBucketRegion

        /// The field's name as sent, in lower case.
        public var text: StaticString {
            switch self {
            case .age: "age"
            case .cacheControl: "cache-control"
            case .contentRange: "content-range"
            case .contentType: "content-type"
            case .date: "date"
            case .etag: "etag"
            case .expires: "expires"
            case .lastModified: "last-modified"
            case .retryAfter: "retry-after"
            case .vary: "vary"
            case .amzBucketRegion: "x-amz-bucket-region"
            }
        }

        /// How many fields are kept (`allCases` is computed at each use).
        static let count = allCases.count

        /// The case named `name`, in any case; nil for a field not kept.
        public init?(_ name: String) {
            let lowered = name.lowercased()
            guard let found = Self.allCases.first(where: { $0.text.description == lowered }) else { return nil }
            self = found
        }
    }

    /// The values by `Name.rawValue`; empty until a field is set.
    private var values: [String?] = []

    /// No fields.
    public init() {}

    /// The fields given by name (in any case); a name not in `Name` is dropped,
    /// as a response's field not kept is.
    public init(dictionaryLiteral elements: (String, String)...) {
        for (name, value) in elements {
            if let name = Name(name) { self[name] = value }
        }
    }

    /// The fields of `dictionary` that are kept.
    public init(_ dictionary: [String: String]) {
        for (name, value) in dictionary {
            if let name = Name(name) { self[name] = value }
        }
    }

    /// The field's value (repeated fields joined with ", "), nil if absent.
    public subscript(name: Name) -> String? {
        get { values.isEmpty ? nil : values[name.rawValue] }
        set {
            if values.isEmpty {
                guard newValue != nil else { return }
                values = Array(repeating: nil, count: Name.count)
            }
            values[name.rawValue] = newValue
        }
    }

    /// The field named `name` (in any case), nil if absent or not kept.
    public subscript(name: String) -> String? {
        Name(name).flatMap { self[$0] }
    }

    /// The fields present, in `Name`'s order.
    public var fields: [(name: Name, value: String)] {
        Name.allCases.compactMap { name in self[name].map { (name, $0) } }
    }

    /// Whether no field is present.
    public var isEmpty: Bool { values.allSatisfy { $0 == nil } }

    /// Removes every field, keeping the storage.
    mutating func removeAll() {
        for index in values.indices { values[index] = nil }
    }

    public static func == (lhs: ResponseHeaders, rhs: ResponseHeaders) -> Bool {
        Name.allCases.allSatisfy { lhs[$0] == rhs[$0] }
    }
}
