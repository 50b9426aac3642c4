# Sourced by the experiment scripts that time several builds of the CLI in one device call
# (run26.sh, run27.sh). `B` is the call's `$OUT`.

# The carried CLI of build NAME: `main` is `.gpu/rtriton`, a branch's `.gpu/rtriton-NAME`.
build_bin() { [[ $1 == main ]] && echo .gpu/rtriton || echo ".gpu/rtriton-$1"; }

# alternate ROUNDS STEP DIR PART BUILD...: for each round of ROUNDS, every BUILD in order
# (reversed in even rounds, so drift along the call weighs on no build alone) runs
# `STEP BINARY FOLDER`, its lines tagged with the build and the round; folders under
# $B/DIR, archive part-PART.tgz rewritten after each step (a part cut by the call's limit
# keeps what it had).
alternate() {
    local rounds=$1 step=$2 dir=$3 part=$4 round b d order
    shift 4
    for round in $rounds; do
        order=("$@")
        if (( round % 2 == 0 )); then mapfile -t order < <(printf '%s\n' "$@" | tac); fi
        for b in "${order[@]}"; do
            d=$B/$dir/$b-$round; mkdir -p "$d"
            "$step" "$(build_bin "$b")" "$d" | sed "s/^/$b r$round /"
            tar czf "$B/part-$part.tgz" -C "$B" "$dir"
        done
    done
}
