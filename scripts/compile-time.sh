#!/usr/bin/env bash
# What the derive costs a user's build, against serde's derives on the same
# structs: a generated crate of 20 entities (8 fields, 2 GSIs each).
#
#   bash scripts/compile-time.sh [rounds]
#
# Prints, side by side in one run:
#   * incremental rebuild time after an edit of the crate (median of
#     `rounds` rebuilds, default 5), ours / serde's Serialize+Deserialize;
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
build() { cargo build -q --manifest-path "$work/$1/Cargo.toml" 2>&1; }

echo "warming (dependencies build once) ..."
for c in ours serde_derives plain; do build $c; done

# One edit then rebuild, alternating contenders, `rounds` times each.
edit() { sed -i "s|^// edit: .*|// edit: $RANDOM$RANDOM|" "$work/$1/src/lib.rs"; }
timed() {
  local start end
  edit "$1"
  start=$(date +%s%N)
  build "$1" >/dev/null
  end=$(date +%s%N)
  echo $(((end - start) / 1000000))
}
median() { tr ' ' '\n' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ours=() serde=()
for _ in $(seq 1 "$rounds"); do
  ours+=("$(timed ours)")
  serde+=("$(timed serde_derives)")
done
ours_ms=$(echo "${ours[@]}" | median)
serde_ms=$(echo "${serde[@]}" | median)

expanded_lines() {
  RUSTC_BOOTSTRAP=1 cargo rustc -q --manifest-path "$work/$1/Cargo.toml" --lib -- -Zunpretty=expanded 2>/dev/null |
    grep -cv '^\s*$'
}
plain_lines=$(expanded_lines plain)
ours_lines=$((($(expanded_lines ours) - plain_lines) / entities))
serde_lines=$((($(expanded_lines serde_derives) - plain_lines) / entities))

echo "== $entities entities, 8 fields, 2 GSIs each; median of $rounds incremental rebuilds"
echo "incremental rebuild: ours ${ours_ms} ms | serde ${serde_ms} ms | ratio $(awk "BEGIN {printf \"%.2f\", $ours_ms / $serde_ms}")x (target <= 2x)"
echo "generated lines per entity: ours ${ours_lines} | serde ${serde_lines} (target <= 650)"
