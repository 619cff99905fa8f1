#!/usr/bin/env python3
# embed-page.py IN OUT NAME: the bytes of IN as `static const char NAME[]`
# (NUL-terminated) in the C header OUT, for a text the program writes out
# whole (export/report-page.html).  Bytes, not a string literal: ISO C
# promises string literals of 4095 characters only (-Woverlength-strings).
import sys

src, out, name = sys.argv[1:4]
data = open(src, 'rb').read()
if b'\0' in data:
    sys.exit(f'{src}: holds a NUL byte')
with open(out, 'w') as f:
    f.write(f'/* Generated from {src.split("/")[-1]} by export/embed-page.py: do not edit. */\n')
    f.write(f'static const char {name}[] = {{\n')
    for i in range(0, len(data), 16):
        f.write('\t' + ', '.join("'\\x%02x'" % b for b in data[i:i + 16]) + ',\n')
    f.write('\t0\n};\n')
