/// A value type's fields kept in one heap box that its copies share (copy on
/// write), so that copying the value is a retain of the box rather than a copy
/// of every field and a retain of each reference among them. A value handed
/// through many `async` steps pays that copy and its destroy at each one
/// (`DownloadRequest`, about a dozen times a load; `ImageResponse`, about four).
///
/// The owner keeps one `CopyOnWriteBox` of its private `Fields` struct and
/// writes an accessor per field: `get { box.fields.url }` reads in place in
/// the shared box; `set { box.fields.url = newValue }` changes a box that no
/// other copy holds, copying the fields into a new one first if another does.
/// The box is changed only then, so no two threads ever touch one that changes.
struct CopyOnWriteBox<Fields: Sendable>: Sendable {
    /// The heap box. `@unchecked`: its fields change only through `fields`'
    /// `_modify`, in a box no other copy holds.
    private final class Storage: @unchecked Sendable {
        var fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    private var storage: Storage

    /// A box of its own for `fields`.
    init(_ fields: Fields) { storage = Storage(fields) }

    /// The fields. Read in place (`_read`: no copy of the whole struct for
    /// one field); changed in place (`_modify`) once the box is this copy's own.
    var fields: Fields {
        _read { yield storage.fields }
        _modify {
            if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.fields) }
            yield &storage.fields
        }
    }
}
