#!/usr/bin/env python3
"""Builds a HEIF file from images heif-enc wrote, which libheif 1.15's heif-enc
cannot write itself: a grid of tiles, and an alpha plane of another size.

  make-heif-grid.py -o OUT [--grid ROWS COLUMNS WIDTH HEIGHT] [--alpha A.heic] IMAGE.heic...

With --grid, the IMAGEs are the tiles in row order and the primary item is a
`grid` of them, WIDTH x HEIGHT (the right and bottom tiles cropped); else the
one IMAGE is the primary item. --alpha adds A's primary image as the primary
item's alpha plane (an `auxl` auxiliary image with `auxC`), whatever its size.
Each coded image is copied with its own properties (hvcC, ispe, colr, pixi);
the tests check the result against heif-convert (Tests/.../HEIFSamples.swift).
"""
import argparse
import struct


def boxes(data, start=0, end=None):
    """(type, payload start, box end) of each box in data[start:end]."""
    end = len(data) if end is None else end
    found, at = [], start
    while at + 8 <= end:
        size, kind = struct.unpack(">I4s", data[at:at + 8])
        if size < 8 or at + size > end:
            raise ValueError("box does not fit")
        found.append((kind.decode("latin-1"), at + 8, at + size))
        at += size
    return found


def child(data, parent, kind, extra=0):
    for k, start, end in boxes(data, parent[0] + extra, parent[1]):
        if k == kind:
            return (start, end)
    raise ValueError(f"no {kind}")


def coded_image(path):
    """The primary item of a heif-enc file: (item type, property boxes, coded bytes)."""
    data = open(path, "rb").read()
    meta = child(data, (0, len(data)), "meta")
    meta = (meta[0] + 4, meta[1])  # a full box
    pitm = child(data, meta, "pitm")
    version = data[pitm[0]]
    primary = struct.unpack(">H" if version == 0 else ">I", data[pitm[0] + 4:pitm[0] + (6 if version == 0 else 8)])[0]
    # iinf: the primary's type.
    iinf = child(data, meta, "iinf")
    count_bytes = 2 if data[iinf[0]] == 0 else 4
    item_type = None
    for kind, start, end in boxes(data, iinf[0] + 4 + count_bytes, iinf[1]):
        if kind != "infe":
            continue
        infe_version = data[start]
        id_bytes = 2 if infe_version == 2 else 4
        item = int.from_bytes(data[start + 4:start + 4 + id_bytes], "big")
        if item == primary:
            type_at = start + 4 + id_bytes + 2
            item_type = data[type_at:type_at + 4].decode("latin-1")
    # iprp: the primary's properties, whole boxes in association order.
    iprp = child(data, meta, "iprp")
    ipco = child(data, iprp, "ipco")
    props = [data[start - 8:end] for _, start, end in boxes(data, ipco[0], ipco[1])]
    ipma = child(data, iprp, "ipma")
    ipma_version, wide = data[ipma[0]], data[ipma[0] + 3] & 1
    at = ipma[0] + 4
    entries = struct.unpack(">I", data[at:at + 4])[0]
    at += 4
    chosen = []
    for _ in range(entries):
        id_bytes = 2 if ipma_version == 0 else 4
        item = int.from_bytes(data[at:at + id_bytes], "big")
        n = data[at + id_bytes]
        at += id_bytes + 1
        for _ in range(n):
            raw = int.from_bytes(data[at:at + (2 if wide else 1)], "big")
            at += 2 if wide else 1
            index = raw & (0x7FFF if wide else 0x7F)
            if item == primary and index > 0:
                chosen.append(props[index - 1])
    # iloc: the primary's extents, in the file (construction method 0).
    iloc = child(data, meta, "iloc")
    iloc_version = data[iloc[0]]
    offset_size, length_size = data[iloc[0] + 4] >> 4, data[iloc[0] + 4] & 15
    base_size, index_size = data[iloc[0] + 5] >> 4, (data[iloc[0] + 5] & 15) if iloc_version else 0
    at = iloc[0] + 6
    item_bytes = 4 if iloc_version == 2 else 2

    def read(n):
        nonlocal at
        value = int.from_bytes(data[at:at + n], "big") if n else 0
        at += n
        return value

    coded = None
    for _ in range(read(item_bytes)):
        item = read(item_bytes)
        method = read(2) & 15 if iloc_version >= 1 else 0
        read(2)
        base = read(base_size)
        chunks = []
        for _ in range(read(2)):
            read(index_size)
            offset, length = read(offset_size), read(length_size)
            chunks.append(data[base + offset:base + offset + length])
        if item == primary:
            if method != 0:
                raise ValueError("primary item not in the file")
            coded = b"".join(chunks)
    return item_type, chosen, coded


def box(kind, payload):
    return struct.pack(">I4s", len(payload) + 8, kind.encode("latin-1")) + payload


def full_box(kind, version, flags, payload):
    return box(kind, bytes([version]) + flags.to_bytes(3, "big") + payload)


def build(images, grid, alpha):
    """images: [(type, props, coded)]; grid: (rows, columns, width, height) or None."""
    ipco, items = [], []  # items: (id, type, hidden, property indices, data or None for idat)

    def add_property(prop):
        if prop not in ipco:
            ipco.append(prop)
        return ipco.index(prop) + 1

    next_id = 1
    if grid:
        rows, columns, width, height = grid
        assert rows * columns == len(images)
        grid_id, next_id = 1, 2
        extra = [p for p in images[0][1] if p[4:8] not in (b"hvcC", b"ispe")]
        grid_props = [add_property(full_box("ispe", 0, 0, struct.pack(">II", width, height)))]
        grid_props += [add_property(p) for p in extra]
        items.append((grid_id, "grid", False, grid_props, None))
        descriptor = bytes([0, 0, rows - 1, columns - 1]) + struct.pack(">HH", width, height)
    tile_ids = []
    for item_type, props, coded in images:
        items.append((next_id, item_type, bool(grid), [add_property(p) for p in props], coded))
        tile_ids.append(next_id)
        next_id += 1
    primary = 1
    refs = b""
    if grid:
        refs += box("dimg", struct.pack(">HH", primary, len(tile_ids)) + b"".join(struct.pack(">H", t) for t in tile_ids))
    if alpha:
        item_type, props, coded = alpha
        aux = full_box("auxC", 0, 0, b"urn:mpeg:hevc:2015:auxid:1\0")
        items.append((next_id, item_type, False, [add_property(p) for p in props] + [add_property(aux)], coded))
        refs += box("auxl", struct.pack(">HHH", next_id, 1, primary))
        next_id += 1

    def meta_bytes(mdat_start):
        hdlr = full_box("hdlr", 0, 0, b"\0" * 4 + b"pict" + b"\0" * 12 + b"\0")
        pitm = full_box("pitm", 0, 0, struct.pack(">H", primary))
        infes = b"".join(
            full_box("infe", 2, 1 if hidden else 0, struct.pack(">HH", i, 0) + t.encode() + b"\0")
            for i, t, hidden, _, _ in items)
        iinf = full_box("iinf", 0, 0, struct.pack(">H", len(items)) + infes)
        iref = full_box("iref", 0, 0, refs) if refs else b""
        entries, offset = b"", mdat_start
        for i, _, _, _, coded in items:
            if coded is None:
                entries += struct.pack(">HHHHII", i, 1, 0, 1, 0, len(descriptor))
            else:
                entries += struct.pack(">HHHHII", i, 0, 0, 1, offset, len(coded))
                offset += len(coded)
        iloc = full_box("iloc", 1, 0, bytes([0x44, 0x00]) + struct.pack(">H", len(items)) + entries)
        associations = b"".join(
            struct.pack(">HB", i, len(props))
            + bytes((0x80 if ipco[p - 1][4:8] == b"hvcC" else 0) | p for p in props)
            for i, _, _, props, _ in items)
        ipma = full_box("ipma", 0, 0, struct.pack(">I", len(items)) + associations)
        iprp = box("iprp", box("ipco", b"".join(ipco)) + ipma)
        idat = box("idat", descriptor) if grid else b""
        return full_box("meta", 0, 0, hdlr + pitm + iloc + iinf + iref + iprp + idat)

    ftyp = box("ftyp", b"heic" + b"\0\0\0\0" + b"mif1heic")
    size = len(meta_bytes(0))
    meta = meta_bytes(len(ftyp) + size + 8)
    mdat = box("mdat", b"".join(coded for *_, coded in items if coded is not None))
    return ftyp + meta + mdat


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-o", required=True)
    parser.add_argument("--grid", nargs=4, type=int, metavar=("ROWS", "COLUMNS", "WIDTH", "HEIGHT"))
    parser.add_argument("--alpha")
    parser.add_argument("images", nargs="+")
    args = parser.parse_args()
    if not args.grid and len(args.images) != 1:
        parser.error("one image without --grid")
    images = [coded_image(p) for p in args.images]
    alpha = coded_image(args.alpha) if args.alpha else None
    with open(args.o, "wb") as out:
        out.write(build(images, args.grid, alpha))


if __name__ == "__main__":
    main()
