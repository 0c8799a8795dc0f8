# Sourced by the CLI test scripts. flip_bit FILE OFFSET: invert the lowest bit
# of the byte at OFFSET, in place. Writing a fixed byte instead would leave a
# randomised proof unchanged whenever it already held that value (1 in 256
# runs), and the "corrupted proof is refused" check would then fail by chance.
flip_bit() {
  local b
  b=$(od -An -tu1 -j"$2" -N1 "$1" | tr -d ' ')
  [ -n "$b" ] || { echo "flip_bit: $1 has no byte at offset $2" >&2; return 1; }
  # shellcheck disable=SC2059 # the format is the octal escape of the new byte
  printf "$(printf '\\%03o' $((b ^ 1)))" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}
