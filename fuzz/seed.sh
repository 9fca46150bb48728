#!/usr/bin/env bash
# Seeds every target's corpus with the repository's examples (and the kept
# regression inputs), so the fuzzers start from real messages.
set -euo pipefail
cd "$(dirname "$0")"
for target in read_any crosstalk_canonical convert_promise msp_encode signatures thread_and_poll pieces_like_whole cbp_frames; do
    mkdir -p "corpus/$target"
    find ../examples ../tests/fixtures ../tests/fuzz-regressions -type f -size -64k -print0 |
        while IFS= read -r -d '' f; do
            cp "$f" "corpus/$target/$(sha1sum < "$f" | cut -c1-16)"
        done
done
