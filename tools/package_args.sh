# shellcheck shell=bash disable=SC2034  # sets variables for the script that sources it
# Sourced by tools/ab.sh and tools/replay.sh: the options that say which package to generate (the descriptor and
# the profile records), their defaults (what tools/bench.sh makes), and the check that the inputs exist. The
# sourcing script sets `script` to its name for the messages.

arch=build/bench/host.yaml
profile=(--profile build/bench/pkg/profile_records.yaml)

# Takes one --arch FILE, --profile FILE or --no-profile from the front of "$@"; sets package_shift to the number of
# words it took (0: the first word is not one of them).
package_option() {
  package_shift=0
  case ${1-} in
    --arch) arch=${2:?"$script: --arch wants a descriptor file"}; package_shift=2 ;;
    --profile) profile=(--profile "${2:?"$script: --profile wants a records file"}"); package_shift=2 ;;
    --no-profile) profile=(--no-profile); package_shift=1 ;;
  esac
}

# Exits with status 2, naming it, at the first missing input: the generator, the descriptor, the records, then any
# further files given.
require_package_inputs() {
  local needed=(build/strata "$arch") file
  [ "${profile[0]}" = --profile ] && needed+=("${profile[1]}")
  for file in "${needed[@]}" "$@"; do
    [ -e "$file" ] || { echo "$script: $file is missing (the defaults come from tools/bench.sh)" >&2; exit 2; }
  done
}
