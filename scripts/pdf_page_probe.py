#!/usr/bin/env python3
"""Probe sentences per page: is each found on its page?

For every page of every PDF in a folder, eight words from the middle of the
longest line of prose pdftotext reads on that page (Latin letters and
punctuation only, so no formula or Greek letter whose glyphs two extractors map
differently; the middle, so a probe rarely straddles two passages) are searched with
`evident search --mode lexical --json -k 20` in an index built from the folder.
The probe is found when a hit holds its words in order and spans that physical
page (text repeated on several pages is found on each). Prints one line per PDF and the totals.
Usage: pdf_page_probe.py EVIDENT_BINARY INDEX PDF_DIR
"""
import json
import pathlib
import re
import subprocess
import sys


def words(text):
    return re.findall(r"\w+", text.lower())


def probe_line(pdf, page):
    text = subprocess.run(["pdftotext", "-f", str(page), "-l", str(page), str(pdf), "-"],
                          capture_output=True, text=True).stdout
    prose = re.compile(r"^[A-Za-z\u00c0-\u00ff][A-Za-z\u00c0-\u00ff\s,.;:!?'\"()\u2019\u201c\u201d\u201e-]*$")
    lines = [l.strip() for l in text.splitlines() if len(words(l)) >= 8 and prose.match(l.strip())]
    lines = [l for l in lines if not re.search(r"\d", l)]
    # A line that ends in a hyphen is half a word: pdftotext joins it, evident too.
    lines = [l for l in lines if not l.endswith("-")]
    if not lines:
        return None
    line = max(lines, key=len).split()
    middle = max(0, (len(line) - 8) // 2)
    return " ".join(line[middle:middle + 8])


def pages_of(pdf):
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True).stdout
    found = re.search(r"^Pages:\s+(\d+)", info, re.M)
    return int(found.group(1)) if found else 0


def main():
    evident, index, folder = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
    total = hit = 0
    for pdf in sorted(folder.glob("*.pdf")):
        probes = found = 0
        missed = []
        for page in range(1, pages_of(pdf) + 1):
            line = probe_line(pdf, page)
            if not line:
                continue
            probes += 1
            out = subprocess.run([evident, "search", line, "--index", index, "--mode", "lexical", "--json", "-k", "20"],
                                 capture_output=True, text=True)
            hits = json.loads(out.stdout)["hits"] if out.returncode == 0 else []
            want = " ".join(words(line))
            ok = any(h["source"] == pdf.name and h.get("pages")
                     and h["pages"]["start"] <= page <= h["pages"]["end"]
                     and want in " ".join(words(h["text"])) for h in hits)
            found += ok
            if not ok:
                missed.append(page)
        if probes:
            print(f"{pdf.name}\t{found}/{probes} probes on their page" + (f"\tmissed pages {missed[:10]}" if missed else ""))
        total += probes
        hit += found
    print(f"all\t{hit}/{total}")


if __name__ == "__main__":
    main()
