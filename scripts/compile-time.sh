#!/usr/bin/env bash
# What the derive costs a user's build, against serde's derives on the same
# structs: a generated crate of 20 entities (8 fields, 2 GSIs each).
#
#   bash scripts/compile-time.sh [rounds]
#
# Prints, side by side in one run (`rounds` rebuilds each, default 5, the
# contenders alternating), ours / serde's Serialize+Deserialize on the same
# structs: the median times, and as the ratio the median of the rounds'
# ratios (each round's pair runs back to back, so a load that comes and
# goes on a shared machine cancels out of it):
#   * touch: the rebuild after `touch src/lib.rs` (debug, incremental): what
#     a user sees after saving a file unchanged or switching branches;
#   * whole crate: the same rebuild with `CARGO_INCREMENTAL=0` (a CI build,
#     a release-like full compile of the crate);
#   * edit: the incremental rebuild after a one-line edit (a comment);
#   * generated lines per entity: the crate expanded (`-Zunpretty=expanded`,
#     through RUSTC_BOOTSTRAP on stable) minus the same structs with no
#     derive, over 20.
# The crates live in target/compile-time (their own target dir beside).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
rounds=${1:-5}
work=$root/target/compile-time
mkdir -p "$work"

entities=20
fields() { # the 8 fields of entity $1
  cat <<F
    pub tenant_id: String,
    pub item_id: String,
    pub owner: String,
    pub status: String,
    pub priority: u32,
    pub created: i64,
    pub score: i64,
    pub done: bool,
F
}

write_crate() { # name, derive line(s), key attributes (1/0)
  local name=$1 derive=$2 keys=$3
  mkdir -p "$work/$name/src"
  cat > "$work/$name/Cargo.toml" <<T
[package]
name = "$name"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
entity-client = { path = "$root/entity-client" }
serde = { version = "1", features = ["derive"] }

[workspace]
T
  {
    echo "#![allow(dead_code)]"
    for i in $(seq 1 $entities); do
      [ -n "$derive" ] && echo "$derive"
      if [ "$keys" = 1 ]; then
        echo "#[entity(schema = \"bench\")]"
        echo "#[pk(tenant_id, item_id)]"
        echo "#[sk()]"
        echo "#[index(by_owner(gsi = \"gsi1\", pk(owner), sk(status, priority)))]"
        echo "#[index(by_status(gsi = \"gsi2\", pk(status), sk(created)))]"
      fi
      echo "pub struct Entity$i {"
      fields
      echo "}"
    done
    echo "// edit: 0"
  } > "$work/$name/src/lib.rs"
}

write_crate ours '#[derive(entity_client::Entity)]' 1
write_crate serde_derives '#[derive(serde::Serialize, serde::Deserialize)]' 0
write_crate plain '' 0

export CARGO_TARGET_DIR=$work/target
# Non-incremental builds in a target dir of their own, so the two modes
# never invalidate each other's artifacts.
build() { cargo build -q --manifest-path "$work/$1/Cargo.toml" 2>&1; }
build_whole() { CARGO_INCREMENTAL=0 CARGO_TARGET_DIR=$work/target-whole build "$1"; }

echo "warming (dependencies build once) ..."
for c in ours serde_derives plain; do build $c; done
for c in ours serde_derives; do build_whole $c; done

edit() { sed -i "s|^// edit: .*|// edit: $RANDOM$RANDOM|" "$work/$1/src/lib.rs"; }
touched() { touch "$work/$1/src/lib.rs"; }
timed() { # change (edit|touched), builder (build|build_whole), crate
  local start end
  "$1" "$3"
  start=$(date +%s%N)
  "$2" "$3" >/dev/null
  end=$(date +%s%N)
  echo $(((end - start) / 1000000))
}
median() { tr ' ' '\n' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
measure() { # change, builder: prints "ours_ms serde_ms ratio"
  local ours=() serde=() ratios=()
  for _ in $(seq 1 "$rounds"); do
    ours+=("$(timed "$1" "$2" ours)")
    serde+=("$(timed "$1" "$2" serde_derives)")
    ratios+=("$(awk "BEGIN {printf \"%.4f\", ${ours[-1]} / ${serde[-1]}}")")
  done
  echo "$(echo "${ours[@]}" | median) $(echo "${serde[@]}" | median) $(echo "${ratios[@]}" | median)"
}
read -r touch_ours touch_serde touch_ratio < <(measure touched build)
read -r whole_ours whole_serde whole_ratio < <(measure touched build_whole)
read -r edit_ours edit_serde edit_ratio < <(measure edit build)

expanded_lines() {
  RUSTC_BOOTSTRAP=1 cargo rustc -q --manifest-path "$work/$1/Cargo.toml" --lib -- -Zunpretty=expanded 2>/dev/null |
    grep -cv '^\s*$'
}
plain_lines=$(expanded_lines plain)
ours_lines=$((($(expanded_lines ours) - plain_lines) / entities))
serde_lines=$((($(expanded_lines serde_derives) - plain_lines) / entities))

echo "== $entities entities, 8 fields, 2 GSIs each; $rounds rounds, ours then serde; medians, and the median of the rounds' ratios"
echo "touch, incremental:  ours ${touch_ours} ms | serde ${touch_serde} ms | $(printf %.2f "$touch_ratio")x (target <= 1.5x)"
echo "touch, whole crate:  ours ${whole_ours} ms | serde ${whole_serde} ms | $(printf %.2f "$whole_ratio")x (target <= 1.5x)"
echo "edit, incremental:   ours ${edit_ours} ms | serde ${edit_serde} ms | $(printf %.2f "$edit_ratio")x"
echo "generated lines per entity: ours ${ours_lines} | serde ${serde_lines} (target <= 500)"
