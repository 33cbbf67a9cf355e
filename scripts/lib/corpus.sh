# Sourced by the benchmark scripts (after HERE, the checkout): CORPUS, the
# corpus's images, unless set — ../shared beside the checkout, or one level
# further up from a worktree (/work/wt/NAME). A script without it makes its own
# images, and says so in its table.
CORPUS=${CORPUS:-$HERE/../shared/corpus/images}
[ -d "$CORPUS" ] || CORPUS=$HERE/../../shared/corpus/images
# The corpus's root holds bad/ too (malformed files): only its images/ are benchmarked.
[ ! -d "$CORPUS/images" ] || CORPUS=$CORPUS/images
