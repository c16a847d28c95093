#!/usr/bin/env bash
# Writes hapticctl(1) to OUTDIR/hapticctl.1 from hapticctl's argument parser, with swift-argument-
# parser's generate-manual (the Makefile's `generated` target; scripts/cli-test.sh checks the page).
# Usage: man/generate-hapticctl.sh BINDIR OUTDIR [DATE]   (BINDIR holds hapticctl and generate-manual)
#
# generate-manual drops every non-ASCII character of the help texts, whatever the locale: its mdoc
# escaping keeps only the characters for which Character.isASCII holds, so "0…1" came out as "01",
# "−1…1" as "11" and "8000–192000" as "8000192000". It is therefore handed the parser's help
# (--experimental-dump-help, which is what it reads) with each non-ASCII character spelled as an
# ASCII placeholder that its escaping keeps, and the placeholders then become roff's \[uXXXX]
# escapes: groff and mandoc render those as the character itself on a UTF-8 terminal (and as the
# nearest they have elsewhere), so the page says what --help says.
set -euo pipefail
bindir="$1" outdir="$2" date="${3:-}"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT

"$bindir/hapticctl" --experimental-dump-help \
  | perl -CS -pe 's/([^\x00-\x7F])/sprintf("HAPTICCTLU%04XZ", ord($1))/ge' > "$work/help.json"
# generate-manual runs the tool it is given with --experimental-dump-help: a stand-in prints the above.
printf '#!/bin/sh\nexec cat "%s"\n' "$work/help.json" > "$work/hapticctl"
chmod +x "$work/hapticctl"
"$bindir/generate-manual" "$work/hapticctl" --section 1 ${date:+--date "$date"} --output-directory - > "$work/page"
# groff has an ASCII rendering (-Tascii, as man uses in the C locale) for most of those characters
# (\[u2013] is "-", \[u2212] "-"), but none for the ellipsis, which would vanish there again: a
# fallback for groff (mandoc transliterates it itself). scripts/cli-test.sh renders the page with
# -Tascii and fails on any character without one, to be added here.
perl -pe 's/HAPTICCTLU([0-9A-F]{4,6})Z/\\[u$1]/g;
          $_ .= ".if \\n(.g .fchar \\[u2026] ...\n" if /^\.Os\b/' "$work/page" > "$work/hapticctl.1"
if grep -q HAPTICCTLU "$work/hapticctl.1" || LC_ALL=C grep -q '[^[:print:][:space:]]' "$work/hapticctl.1"; then
  echo "generate-hapticctl.sh: a placeholder or a raw byte is left in the page" >&2; exit 1
fi
mkdir -p "$outdir"
mv "$work/hapticctl.1" "$outdir/hapticctl.1"
