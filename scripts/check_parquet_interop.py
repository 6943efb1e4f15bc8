#!/usr/bin/env python3
"""Reads every Parquet file of a metamorph output directory with pyarrow (and polars, when it is
installed) and checks each against its shard manifest: same row count, record kind in the schema
metadata. Exits non-zero with a message on the first mismatch.

Usage: check_parquet_interop.py OUTPUT_DIR
"""
import glob
import json
import os
import sys

import pyarrow.parquet as pq

try:
    import polars
except ImportError:  # polars is optional
    polars = None


def main(root):
    manifests = glob.glob(os.path.join(root, "**", "_manifests", "*.json"), recursive=True)
    if not manifests:
        sys.exit(f"no manifest under {root}")
    checked = 0
    for manifest_path in manifests:
        base = os.path.dirname(os.path.dirname(manifest_path))
        manifest = json.load(open(manifest_path))
        for entry in manifest["files"]:
            path = os.path.join(base, entry["path"])
            table = pq.read_table(path)
            kind = (table.schema.metadata or {}).get(b"metamorph.record", b"").decode()
            if kind != entry["kind"]:
                sys.exit(f"{path}: metadata kind {kind!r}, manifest says {entry['kind']!r}")
            if table.num_rows != entry["rows"]:
                sys.exit(f"{path}: pyarrow reads {table.num_rows} rows, manifest says {entry['rows']}")
            if polars is not None:
                frame = polars.read_parquet(path)
                if frame.height != entry["rows"]:
                    sys.exit(f"{path}: polars reads {frame.height} rows, manifest says {entry['rows']}")
            checked += 1
    readers = "pyarrow and polars" if polars is not None else "pyarrow"
    print(f"{checked} files read with {readers}, all match their manifests")


if __name__ == "__main__":
    main(sys.argv[1])
