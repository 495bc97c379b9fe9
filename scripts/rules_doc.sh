#!/usr/bin/env bash
# Prints docs/rules.md: the rule library as `risec rules` lists it, generated from the
# rules' declarations (src/elevate/library.h, "declaring a rule"); the test
# Library.DocsListTheLibrary (tests/elevate/library_doc_test.cpp) checks that the
# file holds the current listing.
#   scripts/rules_doc.sh build/risec > docs/rules.md
set -euo pipefail
risec="${1:-build/risec}"
cat <<'HEAD'
# The strategy library

Every named strategy a `.elv` file can use, as `risec rules` prints it: the
combinators, traversals and predicates, the normal forms, and the rewrite rules by
family, each with its call form (`n` a number, `s` a strategy, `[..]` a list of
numbers, `addr` an address space, `name` a primitive's name) and what it rewrites.
docs/strategies.md explains the families and how the rules combine.

This file is generated from the rules' declarations (`src/elevate/library.h`,
"declaring a rule"; docs/architecture.md, "The strategy library"): after adding or
changing a rule, run `scripts/rules_doc.sh build/risec > docs/rules.md`. A test
(`Library.DocsListTheLibrary`) fails while the file and the declarations disagree.

HEAD
echo '```'
"$risec" rules
echo '```'
