#!/usr/bin/env python3
"""Zips a Lambda bootstrap as deployed: one entry "bootstrap", mode 0755,
a fixed timestamp (the same binary gives the same zip, so the same CDK asset
hash), deflated at zlib's level 9.

    scripts/zip-bootstrap.py BOOTSTRAP OUT.zip
"""
import sys
import zipfile

src, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
    info = zipfile.ZipInfo("bootstrap", date_time=(2026, 1, 1, 0, 0, 0))
    info.external_attr = 0o755 << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    with open(src, "rb") as f:
        z.writestr(info, f.read())
