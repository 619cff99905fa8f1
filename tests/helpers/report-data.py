#!/usr/bin/env python3
"""report-data.py [--golden] REPORT.html: the data report.html embeds
(export/report.c), as indented JSON on stdout.  --golden leaves out what
depends on where and when the export ran (meta.path, meta.exported).
Exit status 1 with a message when the page holds no such data."""
import json
import re
import sys

args = sys.argv[1:]
golden = args[:1] == ["--golden"]
if golden:
    args = args[1:]
if len(args) != 1:
    sys.exit("usage: report-data.py [--golden] REPORT.html")
html = open(args[0], encoding="utf-8").read()
m = re.search(r'<script type="application/json" id="msprof-data">\n(.*?)\n</script>', html, re.S)
if not m:
    sys.exit(f"{args[0]}: no msprof-data element")
data = json.loads(m.group(1))
if golden:
    for k in ("path", "exported"):
        data["meta"].pop(k, None)
json.dump(data, sys.stdout, indent=1, sort_keys=True)
sys.stdout.write("\n")
