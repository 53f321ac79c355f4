#!/usr/bin/env python3
"""Builds the sample corpus data/darwin/ from the public-domain Project Gutenberg
texts of Darwin's *On the Origin of Species* (1859 and 1872 English, 1863 German
translation by Bronn) and the draft concept list.

Usage: scripts/build_darwin_corpus.py [--sources DIR] [--out DIR]
  --sources  folder holding darwin/*.txt and darwin-concepts-draft.jsonl
             (default: ../shared/corpus-sources beside the repository)
  --out      output folder (default: data/darwin in the repository)

What it does, in order:
1. Strips the Project Gutenberg header (through the START marker), footer (from
   the END marker) and every block that names Project Gutenberg; fails if the
   trademark survives anywhere in the kept text.
2. Splits each edition into one document per chapter (plus the Historical
   Sketch, the Introduction, the 1872 Glossary, and in German the translator's
   chapter 15 and the endnotes), with front matter: work, edition, year,
   language, witness, voice, and the sha256 of the original file and of the
   kept text.
3. Builds entities.jsonl and terminology.jsonl from the draft concepts: every
   alias and every draft count is checked against the texts; what is verified is
   marked `reviewed`, the rest stays `draft`.
The output is deterministic: the same inputs give the same bytes.
"""
import argparse
import hashlib
import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

EDITIONS = {
    "1859-en": dict(file="origin-1859-en.txt", work="origin-1859", year=1859, language="en",
                    edition="1st English edition (London: John Murray, 1859)",
                    edition_number=1, pg="1228", author="Charles Darwin"),
    "1872-en": dict(file="origin-1872-en.txt", work="origin-1872", year=1872, language="en",
                    edition="6th English edition (London: John Murray, 1872)",
                    edition_number=6, pg="2009", author="Charles Darwin"),
    "1863-de": dict(file="origin-1863-de.txt", work="origin-1863-de", year=1863, language="de",
                    edition="2nd German edition (Stuttgart: Schweizerbart, 1863), Bronn's translation "
                            "of the 3rd English edition (1861)",
                    edition_number=3, pg="69172", author="Charles Darwin",
                    translator="Heinrich Georg Bronn"),
}

ROMAN = ["I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII", "XIII", "XIV", "XV"]
GERMAN_ORDINALS = ["Erstes", "Zweites", "Drittes", "Viertes", "Fünftes", "Sechstes", "Siebentes", "Achtes",
                   "Neuntes", "Zehntes", "Eilftes", "Zwölftes", "Dreizehntes", "Vierzehntes", "Fünfzehntes"]
SMALL_WORDS = {"a", "an", "and", "as", "at", "by", "for", "in", "of", "on", "or", "the", "to", "under", "with"}


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def pg_body(raw: str) -> list:
    """Lines strictly between the START and END markers (the German START marker spans two lines)."""
    lines = raw.replace("\r", "").lstrip("\ufeff").split("\n")
    start = next(i for i, l in enumerate(lines) if re.match(r"^\*\*\* ?START OF", l))
    while not lines[start].rstrip().endswith("***"):
        start += 1
    end = next(i for i, l in enumerate(lines) if re.match(r"^\*\*\* ?END OF", l))
    return lines[start + 1:end]


def strip_markup(text: str) -> str:
    """Removes the transcribers' inline markup (_italic_, =bold=, +spaced+, ~small caps~, ^{sup})."""
    text = re.sub(r"\^\{([^}\n]*)\}", r"\1", text)
    text = re.sub(r"\^(\w)", r"\1", text)
    # Italic and small-caps spans may run across a line break, never across a paragraph.
    for mark in ("_", "~"):
        m = re.escape(mark)
        text = re.sub(rf"{m}((?:(?!\n\s*\n)[^{m}])+?){m}", r"\1", text)
    for mark in ("=", "+"):
        m = re.escape(mark)
        text = re.sub(rf"{m}([^{m}\n]+?){m}", r"\1", text)
    return text


def title_case(line: str) -> str:
    words = line.strip().rstrip(".").lower().split()
    out = []
    for i, w in enumerate(words):
        out.append(w if (i > 0 and w in SMALL_WORDS) else w[:1].upper() + w[1:])
    return " ".join(out)


def find_last(lines, pattern, before=None):
    idx = [i for i, l in enumerate(lines[:before]) if re.match(pattern, l)]
    if not idx:
        raise SystemExit(f"pattern not found: {pattern}")
    return idx[-1]


def find_first(lines, pattern, after=0):
    for i in range(after, len(lines)):
        if re.match(pattern, lines[i]):
            return i
    raise SystemExit(f"pattern not found: {pattern}")


def heading_title(lines, i):
    """First non-empty line after a chapter heading at line i."""
    j = i + 1
    while not lines[j].strip():
        j += 1
    parts = []
    while lines[j].strip():
        parts.append(lines[j].strip())
        j += 1
    return strip_markup(" ".join(parts))


def english_sections(lines, witness):
    """(doc suffix, section, section_order, title, voice, author, start, end) for an English edition."""
    count = 14 if witness == "1859-en" else 15
    chapters = [find_last(lines, rf"^CHAPTER {r}\.$") for r in ROMAN[:count]]
    intro = find_last(lines, r"^INTRODUCTION\.$", before=chapters[0])
    sections = []
    if witness == "1872-en":
        sketch = find_first(lines, r"^AN HISTORICAL SKETCH")
        contents = find_first(lines, r"^Contents$", after=sketch)
        sections.append(("sketch", "Historical Sketch", 0,
                         "An Historical Sketch of the Progress of Opinion on the Origin of Species",
                         "author", "Charles Darwin", sketch, contents))
        end_of_text = find_last(lines, r"^GLOSSARY OF THE PRINCIPAL SCIENTIFIC TERMS")
        index = find_last(lines, r"^INDEX\.$")
    else:
        end_of_text = find_last(lines, r"^INDEX\.$")
        index = end_of_text
    sections.append(("intro", "Introduction", 0 if witness == "1859-en" else 1, "Introduction", "author",
                     "Charles Darwin", intro, chapters[0]))
    base = sections[-1][2]
    for n, start in enumerate(chapters):
        end = chapters[n + 1] if n + 1 < len(chapters) else end_of_text
        title = heading_title(lines, start)
        if witness == "1859-en" and n == 13:  # "CHAPTER XIV." is followed by the title on the next line
            title = "RECAPITULATION AND CONCLUSION."
        sections.append((f"ch{n + 1:02d}", f"Chapter {ROMAN[n]}", base + n + 1, title_case(title), "author",
                         "Charles Darwin", start, end))
    if witness == "1872-en":
        sections.append(("glossary", "Glossary", base + count + 1,
                         "Glossary of the Principal Scientific Terms Used in the Present Volume",
                         "glossarist", "W. S. Dallas", end_of_text, index))
    return sections


def german_sections(lines):
    chapters = [find_first(lines, rf"^{o} Kapitel\.$") for o in GERMAN_ORDINALS]
    vorrede = find_first(lines, r"^Vorrede des Verfassers\.$")
    einleitung = find_first(lines, r"^Einleitung\.$", after=vorrede)
    notes = find_first(lines, r"^Fußnoten:$", after=chapters[-1])
    sections = [
        ("vorrede", "Vorrede des Verfassers", 0, "Vorrede des Verfassers", "author", "Charles Darwin",
         vorrede, einleitung),
        ("einleitung", "Einleitung", 1, "Einleitung", "author", "Charles Darwin", einleitung, chapters[0]),
    ]
    for n, start in enumerate(chapters):
        end = chapters[n + 1] if n + 1 < len(chapters) else notes
        title = heading_title(lines, start).rstrip(".")
        title = re.sub(r"\[\d+\]$", "", title)
        voice, author = ("translator", "Heinrich Georg Bronn") if n == 14 else ("author", "Charles Darwin")
        sections.append((f"ch{n + 1:02d}", f"Kapitel {n + 1}", n + 2, title, voice, author, start, end))
    return sections, notes, chapters[-1]


def german_notes(lines, notes_start, translator_chapter_start):
    """Splits the endnotes into (number, text) and attributes each: signed by the
    translator ("D. Übs." and variants, "Br.") or referenced from his chapter 15
    → translator; otherwise unattributed (Darwin's own notes and unsigned ones mix)."""
    body = lines[notes_start + 1:]
    notes, current = [], None
    for line in body:
        m = re.match(r"^\[(\d+)\] ", line)
        if m:
            current = [int(m.group(1)), [line]]
            notes.append(current)
        elif current is not None:
            current[1].append(line)
    referenced_in_ch15 = set()
    for line in lines[translator_chapter_start:notes_start]:
        referenced_in_ch15.update(int(n) for n in re.findall(r"\[(\d+)\]", line))
    translator, other = [], []
    for number, note_lines in notes:
        text = "\n".join(note_lines).strip()
        signed = re.search(r"D\. ?Üb\w*\.|\bBr\.\s*$", text) is not None
        (translator if signed or number in referenced_in_ch15 else other).append(text)
    return translator, other


def front_matter(fields: dict) -> str:
    out = ["---"]
    for key, value in fields.items():
        if value is None:
            continue
        out.append(f"{key}: {value}")
    out.append("---")
    return "\n".join(out) + "\n"


def write_document(out_dir: Path, doc_id: str, fields: dict, text: str, written: list):
    text = strip_markup(text).strip("\n") + "\n"
    fields = dict(fields)
    fields["kept_sha256"] = sha256(text.encode("utf-8"))
    path = out_dir / "documents" / f"{doc_id}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(front_matter({"id": doc_id, **fields}) + text, encoding="utf-8")
    written.append((doc_id, fields, text))


def build_documents(src: Path, out: Path):
    written = []
    kept = {}
    for witness, ed in EDITIONS.items():
        raw_bytes = (src / "darwin" / ed["file"]).read_bytes()
        lines = pg_body(raw_bytes.decode("utf-8"))
        common = dict(work=ed["work"], year=ed["year"], language=ed["language"], witness=witness,
                      edition=ed["edition"], edition_number=ed["edition_number"],
                      translator=ed.get("translator"),
                      origin_file=ed["file"],
                      origin_sha256=sha256(raw_bytes))
        if witness == "1863-de":
            sections, notes_start, ch15 = german_sections(lines)
        else:
            sections = english_sections(lines, witness)
        edition_text = []
        for suffix, section, order, title, voice, author, start, end in sections:
            text = "\n".join(lines[start:end])
            doc_id = f"{ed['work']}.{suffix}"
            write_document(out, doc_id, dict(title=title, section=section, section_order=order,
                                             author=author, voice=voice, **common), text, written)
            edition_text.append(written[-1][2])
        if witness == "1863-de":
            translator, other = german_notes(lines, notes_start, ch15)
            write_document(out, f"{ed['work']}.notes-translator",
                           dict(title="Anmerkungen des Übersetzers", section="Fußnoten (Übersetzer)",
                                section_order=len(sections), author="Heinrich Georg Bronn", voice="translator",
                                **common), "\n\n".join(translator), written)
            edition_text.append(written[-1][2])
            write_document(out, f"{ed['work']}.notes",
                           dict(title="Fußnoten (Verfasser oder ohne Zeichen)", section="Fußnoten",
                                section_order=len(sections) + 1, author="Charles Darwin / Heinrich Georg Bronn",
                                voice="unattributed", **common), "\n\n".join(other), written)
            edition_text.append(written[-1][2])
        kept[witness] = dict(origin_sha256=sha256(raw_bytes),
                             kept_sha256=sha256("".join(edition_text).encode("utf-8")),
                             text="".join(edition_text), body="\n".join(lines), **ed)
    for doc_id, _, text in written:
        if re.search(r"gutenberg", text, re.IGNORECASE):
            raise SystemExit(f"{doc_id}: kept text still names Project Gutenberg")
    return written, kept


# --- concepts -----------------------------------------------------------------------------------

def normalise_space(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def alias_regex(alias: str):
    words = [re.sub(r"[’']", "[’']", re.escape(w)) for w in alias.split()]
    return re.compile(r"(?<!\w)" + r"\s+".join(words) + r"(?!\w)", re.IGNORECASE)


def clean_terms(raw_terms):
    """Draft terms carry annotations: `X (note)`, `A / B`, `Urkunde(n)`,
    `mit (a/b/c) Abänderung`. Returns (term, annotation) pairs."""
    out = []
    for raw in raw_terms:
        if raw.startswith("("):
            continue  # e.g. "(none — 'Evolution' absent)"
        m = re.match(r"^(.*?)\s*\(([^()]*)\)\s*(.*)$", raw)
        if m and m.group(3) and "/" in m.group(2):
            # "Abstammung mit (a/b/c) Abänderung" → one term per alternative
            for alt in m.group(2).split("/"):
                out.append((f"{m.group(1)} {alt.strip()} {m.group(3)}".strip(), None))
            continue
        m2 = re.match(r"^(.*\w)\((\w+)\)$", raw)
        if m2:  # "Urkunde(n)"
            out.append((m2.group(1), None))
            out.append((m2.group(1) + m2.group(2), None))
            continue
        annotation = None
        if m and not m.group(3):
            raw, annotation = m.group(1), m.group(2)
        for part in raw.split(" / "):
            out.append((part.strip(), annotation))
    return out


def count_pattern(pattern: str, text: str) -> int:
    return len(re.findall(pattern, text, re.IGNORECASE))


def build_concepts(src: Path, kept: dict):
    drafts = [json.loads(l) for l in (src / "darwin-concepts-draft.jsonl").read_text(encoding="utf-8").splitlines()
              if l.strip()]
    english = normalise_space(kept["1859-en"]["text"] + " " + kept["1872-en"]["text"])
    german = normalise_space(kept["1863-de"]["text"])
    bodies = {EDITIONS[w]["file"]: normalise_space(kept[w]["body"]) for w in EDITIONS}
    ids = {d["id"]: "concept." + d["id"].split(":", 1)[1] for d in drafts}
    entities, terminology = [], []
    narrower_of = {}
    for d in drafts:
        if d.get("ambiguous"):
            for sense in d.get("senses", []):
                if sense in ids:
                    narrower_of.setdefault(ids[sense], []).append(ids[d["id"]])

    for d in drafts:
        eid = ids[d["id"]]
        # 1. The draft's own counts, recomputed with its patterns over the same text it used.
        recomputed = {}
        for file, body in bodies.items():
            lang = "de" if file.endswith("-de.txt") else "en"
            recomputed[file] = sum(count_pattern(p, body) for p in d["count_patterns"].get(lang, []))
        counts_verified = recomputed == d["corpus_counts"]

        # 2. Every alias, counted as a whole word in the kept text of its language.
        aliases = {}
        notes = []
        names_en = [d["pref_label_en"]] + d["aliases_en"]
        for lang, raw_terms, text in (("en", names_en, english), ("de", d["de"]["terms"], german)):
            seen = set()
            for term, annotation in clean_terms(raw_terms):
                if term.lower() in seen or not term:
                    continue
                seen.add(term.lower())
                hits = len(alias_regex(term).findall(text))
                status = "reviewed" if hits > 0 else "draft"
                aliases.setdefault(lang, []).append({"name": term, "review_status": status})
                if annotation:
                    notes.append(f"{lang} `{term}`: {annotation}")
        for term, annotation in clean_terms(d["fr"]["terms"]):
            # No French text ships, so no French name can be verified.
            aliases.setdefault("fr", []).append({"name": term, "review_status": "draft"})
            if annotation:
                notes.append(f"fr `{term}`: {annotation}")

        relations = []
        for sense in d.get("senses", []):
            if sense in ids:
                relations.append({"type": "narrower", "target": ids[sense]})
            for ref in re.findall(r"darwin:\w+", sense):
                if ref != sense and ref in ids:
                    relations.append({"type": "related", "target": ids[ref]})
        for broader in narrower_of.get(eid, []):
            relations.append({"type": "broader", "target": broader})
        for ref in sorted(set(re.findall(r"darwin:\w+", d.get("notes", "")))):
            if ref in ids and ref != d["id"] and {"type": "related", "target": ids[ref]} not in relations:
                relations.append({"type": "related", "target": ids[ref]})

        first, last = d["edition_range"]["first"], d["edition_range"]["last"]
        attested = any(v > 0 for v in recomputed.values())
        entity = {
            "id": eid,
            "name": d["pref_label_en"],
            "kind": "concept",
            "aliases": aliases,
            "period": first if first == last else f"{first} – {last}",
            "status": "attested" if attested else "not attested in the corpus",
            "review_status": "reviewed" if counts_verified else "draft",
            "ambiguous": bool(d.get("ambiguous")),
            "senses": [s for s in d.get("senses", []) if s not in ids],
            "definition": None,
            "relations": relations,
            "corpus_counts": recomputed,
            "count_patterns": d["count_patterns"],
            "edition_range_basis": d["edition_range"]["basis"],
            "alias_notes": notes,
            "notes": d.get("notes"),
            "draft_id": d["id"],
        }
        if not counts_verified:
            entity["review_note"] = f"draft counts {d['corpus_counts']} differ from recomputed {recomputed}"
        entities.append(entity)

        # Terminology: the English name against each German and French name.
        en_attested = len(alias_regex(d["pref_label_en"]).findall(english)) > 0
        warnings = []
        if d.get("ambiguous"):
            warnings.append("The concept is ambiguous; check the sense in context.")
        for term, annotation in clean_terms(d["de"]["terms"]):
            de_hits = len(alias_regex(term).findall(german))
            # The draft's annotations say where a rendering is used (attributions), which is a
            # note; only the concept's ambiguity is a contrastive warning.
            note = f"{de_hits} occurrences in Bronn's 1863 translation (whole word, case-insensitive)"
            terminology.append({
                "entity": eid, "source_language": "en", "source_term": d["pref_label_en"],
                "target_language": "de", "target_term": term,
                "review_status": "reviewed" if (en_attested and de_hits > 0) else "draft",
                "warnings": list(warnings),
                "note": note + (f"; draft annotation: {annotation}" if annotation else ""),
            })
        for term, annotation in clean_terms(d["fr"]["terms"]):
            terminology.append({
                "entity": eid, "source_language": "en", "source_term": d["pref_label_en"],
                "target_language": "fr", "target_term": term, "review_status": "draft",
                "warnings": list(warnings),
                "note": "No French text is in the corpus; " + d["fr"].get("basis", "")
                + (f"; draft annotation: {annotation}" if annotation else ""),
            })
    return entities, terminology


# The people the texts name whose names others contain: the author, his
# grandfather (the 1872 historical sketch's "Dr. Erasmus Darwin", Bronn's note's
# "Dr. Darwin") and the translator. Names are the same in every language (`*`).
# With them, a passage on Erasmus Darwin is linked to him, not to Charles, and a
# question about Darwin is not answered with his grandfather's views.
PEOPLE = [
    ("person.charles_darwin", "Charles Darwin", ["Charles Darwin", "Darwin", "Mr. Darwin", "Herr Darwin", "Hr. Darwin"]),
    ("person.erasmus_darwin", "Erasmus Darwin", ["Erasmus Darwin", "Dr. Erasmus Darwin", "Dr. Darwin"]),
    ("person.heinrich_georg_bronn", "Heinrich Georg Bronn", ["Heinrich Georg Bronn", "H. G. Bronn", "Bronn"]),
]


def build_people(kept: dict):
    text = normalise_space(" ".join(kept[w]["text"] for w in EDITIONS))
    people = []
    for eid, name, names in PEOPLE:
        aliases = [{"name": n, "review_status": "reviewed" if alias_regex(n).findall(text) else "draft"}
                   for n in names]
        people.append({
            "id": eid, "name": name, "kind": "person", "aliases": {"*": aliases}, "period": None,
            "status": "attested", "review_status": "reviewed", "ambiguous": False, "senses": [],
            "definition": None, "relations": [],
        })
    return people


def write_jsonl(path: Path, rows):
    path.write_text("".join(json.dumps(r, ensure_ascii=False, sort_keys=False) + "\n" for r in rows),
                    encoding="utf-8")


CORPUS_TOML = """\
# The sample corpus: Darwin's On the Origin of Species at three points in time.
# Built by scripts/build_darwin_corpus.py; see README.md for provenance.
name = "darwin-origin"
default_language = "en"
description = "On the Origin of Species: 1st (1859) and 6th (1872) English editions, and Bronn's 1863 German translation of the 3rd edition (1861)"

[[periods]]
id = "1859-1860"
label = "First edition (1859)"
start = 1859
end = 1860

[[periods]]
id = "1861-1866"
label = "Third edition (1861), in Bronn's German translation (1863)"
start = 1861
end = 1866

[[periods]]
id = "1867-1872"
label = "Fifth and sixth editions (1869-1872)"
start = 1867
end = 1872

[chunking]
target_words = 120
max_words = 200

[vector]
# A multilingual model: an English question finds Bronn's German passages too
# (scripts/crosslingual_probes.py: 9 of 13 probes in the top 10; all-MiniLM-L6-v2: 1).
model = "multilingual-e5-small"
"""


def write_readme(out: Path, kept: dict, written: list, entities, terminology):
    rows = []
    for witness, k in kept.items():
        docs = sum(1 for _, f, _ in written if f["witness"] == witness)
        rows.append(f"| `{witness}` | {k['edition']} | {k['language']} | Project Gutenberg eBook #{k['pg']} "
                    f"(`{k['file']}`) | `{k['origin_sha256']}` | `{k['kept_sha256']}` | {docs} |")
    reviewed_entities = sum(1 for e in entities if e["review_status"] == "reviewed")
    reviewed_terms = sum(1 for t in terminology if t["review_status"] == "reviewed")
    readme = f"""# The Darwin sample corpus

Charles Darwin, *On the Origin of Species*, at three points in time and in two languages. Public domain.
Generated by `scripts/build_darwin_corpus.py` from the staging copies described in the project's
`corpus-sources` README; do not edit by hand — rerun the script.

| witness | edition | language | origin | sha256 of the original file | sha256 of the kept text | documents |
|---|---|---|---|---|---|---|
{chr(10).join(rows)}

- The German text is a third time point, not a parallel of either English file: Bronn translated the 3rd English
  edition (1861) "with the author's newer additions". Its `edition_number` is 3 and its year 1863.
- Each document's front matter repeats `origin_sha256` (the original file) and `kept_sha256` (the text of that
  document as kept here); the table gives the kept text of each edition as a whole (all its documents' bodies
  concatenated in order).

## What was removed or changed
- The Project Gutenberg header (through the START marker), footer (from the END marker, with the licence), and
  everything before the first chapter-level heading: the title pages, the tables of contents, the PG block listing
  other editions, and the German transcribers' note. The build fails if "Gutenberg" survives anywhere.
- The INDEX of both English editions (page references, not prose).
- The transcribers' inline markup `_italic_`, `=bold=`, `+spaced+`, `~small caps~` and `^{{sup}}` is reduced to the
  plain words. Spelling (German 1860s orthography: `Daseyn`, `Thier`), punctuation and line breaks are kept.

## Voice
`voice` in the front matter says whose words a document holds: `author` (Darwin), `translator` (Bronn's own
chapter 15 "Schlusswort des Übersetzers" and the endnotes he signed "D. Übs."/"D. Übers." or that his chapter
cites), `glossarist` (W. S. Dallas's glossary in 1872), or `unattributed` (the other German endnotes, which mix
Darwin's notes with unsigned ones).

## Periods
`corpus.toml` defines 1859-1860 (1st ed.), 1861-1866 (3rd ed. through Bronn) and 1867-1872 (5th/6th eds.).

## Concepts
`entities.jsonl` ({len(entities)} entities, {reviewed_entities} reviewed: the draft's concepts and the
people whose names others contain, Charles and Erasmus Darwin and the translator Bronn) and `terminology.jsonl`
({len(terminology)} mappings, {reviewed_terms} reviewed) come from the draft concept list. The script recomputes
every draft count with the draft's own patterns over the same text the draft used (the body between the PG
markers): a concept whose counts all match is `reviewed`. Every alias is counted as a whole word,
case-insensitively, in the kept text of its language: attested aliases are `reviewed`, the rest `draft`. French
names are all `draft` (no French text ships). A German–English mapping is `reviewed` when both names occur.
No definition is written: `definition` is null until a person reviews one. The ambiguous terms of the draft
(selection, variety, race, species, the word "evolution") stay ambiguous, with their senses.
"""
    (out / "README.md").write_text(readme, encoding="utf-8")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sources", type=Path, default=REPO.parent / "shared" / "corpus-sources")
    parser.add_argument("--out", type=Path, default=REPO / "data" / "darwin")
    args = parser.parse_args()
    if not (args.sources / "darwin").is_dir():
        sys.exit(f"no darwin/ folder under {args.sources}; pass --sources")
    out = args.out
    if (out / "documents").exists():
        for old in (out / "documents").glob("*.md"):
            old.unlink()
    out.mkdir(parents=True, exist_ok=True)
    written, kept = build_documents(args.sources, out)
    entities, terminology = build_concepts(args.sources, kept)
    entities += build_people(kept)
    write_jsonl(out / "entities.jsonl", entities)
    write_jsonl(out / "terminology.jsonl", terminology)
    (out / "corpus.toml").write_text(CORPUS_TOML, encoding="utf-8")
    write_readme(out, kept, written, entities, terminology)
    print(f"wrote {len(written)} documents, {len(entities)} entities, {len(terminology)} terminology rows to {out}")


if __name__ == "__main__":
    main()
