#!/bin/sh
# make_tree.sh DIR - the tree test_os_windows opens under wine, made on the
# Linux side (wine cannot make symlinks): DIR/root with files, a deep chain
# of directories longer than MAX_PATH, and symlinks wine shows as reparse
# points (outward, absolute, inward, a loop, and a dangling one); DIR/outside beside it;
# DIR/scratch for the suites that change things (with a link outward).
set -eu
dir=$1
rm -rf "$dir"
mkdir -p "$dir/root/a/b" "$dir/outside"
printf 'secret\n' >"$dir/outside/secret.txt"
printf 'hello\n' >"$dir/root/a/b/file.txt"
printf 'top\n' >"$dir/root/top.txt"
ln -s ../outside "$dir/root/dirlink"
ln -s ../outside/secret.txt "$dir/root/filelink"
ln -s a "$dir/root/inlink"
ln -s /etc "$dir/root/abslink"
ln -s loop2 "$dir/root/loop1"
ln -s loop1 "$dir/root/loop2"
ln -s ../outside/created.txt "$dir/root/dangle"
mkdir -p "$dir/scratch"
ln -s ../outside "$dir/scratch/outlink"
mkdir -p "$dir/emptydir"
ln -s ../emptydir "$dir/scratch/emptylink"
deep=$dir/root
for i in $(seq 1 30); do deep=$deep/d123456789; done
mkdir -p "$deep"
printf 'deep\n' >"$deep/deep.txt"
