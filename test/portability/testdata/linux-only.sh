#!/usr/bin/env bash
# What a stock Mac refuses, one line per rule of portability_test.go. Never run.
declare -A seen
mapfile -t lines < file
echo "${name,,} ${name^^}"
make 2>&1 |& tee log
wait -n
timeout 300 setup-envtest use 1.36
echo "$sum  file" | sha256sum -c -
jobs=$(nproc)
sed -i 's/a/b/' file
sed -r 's/a+/b/' file
sed -n 's/^\s*"Dir": "\(.*\)",$/\1/p' file
grep -o 'no such host\|timeout' log
grep -P '\d+' log
dir=$(readlink -f .)
when=$(date -d yesterday +%s)
size=$(stat -c %s file)
tmp=$(mktemp /tmp/x.XXXXXX.tar.gz)
