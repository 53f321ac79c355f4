#!/usr/bin/env bash
# Makes the PDF fixtures of tests/fixtures/pdf/ from tests/fixtures/pdf/src/.
# The PDFs are committed (small); this script is how they were made, so a
# maintainer can remake or extend them. Needs Debian's texlive-latex-base,
# texlive-latex-recommended, texlive-fonts-recommended, poppler-utils and qpdf;
# CI does not run it.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)/tests/fixtures/pdf"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# Reproducible pdfTeX output: fixed dates and IDs.
export SOURCE_DATE_EPOCH=1546300800 FORCE_SOURCE_DATE=1
cp "$here/src/paper.tex" "$work/"
(cd "$work" && pdflatex -interaction=batchmode paper.tex >/dev/null && pdflatex -interaction=batchmode paper.tex >/dev/null)
cp "$work/paper.pdf" "$here/paper.pdf"
# A report without outline or section numbers: sections from unnumbered headings.
cp "$here/src/unnumbered.tex" "$work/"
(cd "$work" && pdflatex -interaction=batchmode unnumbered.tex >/dev/null && pdflatex -interaction=batchmode unnumbered.tex >/dev/null)
cp "$work/unnumbered.pdf" "$here/unnumbered.pdf"

# A scan: the paper's first two pages as pictures, no text layer.
pdftoppm -r 40 -f 1 -l 2 -png "$here/paper.pdf" "$work/scan"
cp "$here/src/scan.tex" "$work/"
(cd "$work" && pdflatex -interaction=batchmode scan.tex >/dev/null)
cp "$work/scan.pdf" "$here/scanned.pdf"

# Encrypted with a user password (AES-256): unreadable without it.
qpdf --encrypt secret owner 256 -- "$here/paper.pdf" "$here/encrypted.pdf"
# Cut off after its first third: no cross-reference table, no trailer.
head -c "$(( $(stat -c %s "$here/paper.pdf") / 3 ))" "$here/paper.pdf" > "$here/truncated.pdf"
# A PDF header over nothing a parser can read.
printf '%%PDF-1.7\n%% this is not a PDF body\nobj obj obj\n' > "$here/malformed.pdf"
ls -l "$here"
