#!/usr/bin/env python3
"""Word-sequence similarity of evident's PDF text against Debian's pdftotext.

For each PDF in a folder: the text evident indexes (`evident extract-pdf --text`)
and `pdftotext`'s (reading-order mode), each as its sequence of lower-cased
words (\\w+). Two measures:
- sequence: 1 - d / max(|a|, |b|), d the word-level Levenshtein distance (the
  fewest words inserted, deleted or replaced to turn one into the other);
  1.0 is the same words in the same order. (difflib's ratio misaligns text
  that repeats, as blind-text samples do.)
- 3-grams: F1 of the two multisets of word trigrams: blind to the order of
  whole blocks, not to words interleaved across columns.
pdftotext is a reference, not the truth: where it misreads a layout both fall.
Needs `pip install rapidfuzz`. Usage: pdf_text_similarity.py EVIDENT_BINARY PDF_DIR
"""
import collections
import pathlib
import re
import subprocess
import sys


def words(text):
    return re.findall(r"\w+", text.lower())


def trigram_f1(a, b):
    ta = collections.Counter(zip(a, a[1:], a[2:]))
    tb = collections.Counter(zip(b, b[1:], b[2:]))
    total = sum(ta.values()) + sum(tb.values())
    return 2 * sum((ta & tb).values()) / total if total else 1.0


def main():
    from rapidfuzz.distance import Levenshtein

    evident, folder = sys.argv[1], pathlib.Path(sys.argv[2])
    print("file\twords (pdftotext)\twords (evident)\tsequence\t3-grams")
    for pdf in sorted(folder.glob("*.pdf")):
        ref = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True).stdout
        ours = subprocess.run([evident, "extract-pdf", "--text", str(pdf)], capture_output=True, text=True)
        if ours.returncode != 0:
            print(f"{pdf.name}\t{len(words(ref))}\t-\tnot read: {ours.stderr.strip()}")
            continue
        a, b = words(ref), words(ours.stdout)
        sequence = Levenshtein.normalized_similarity(a, b) if (a or b) else 1.0
        print(f"{pdf.name}\t{len(a)}\t{len(b)}\t{sequence:.3f}\t{trigram_f1(a, b):.3f}")


if __name__ == "__main__":
    main()
