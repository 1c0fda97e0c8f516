#!/bin/sh
# make_tree.sh DIR - the tree test_os_windows opens under wine, made on the
# Linux side (wine cannot make symlinks): DIR/root with files, a deep chain
# of directories longer than MAX_PATH, and symlinks wine shows as reparse
# points (outward, absolute, and inward); DIR/outside beside it.
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
deep=$dir/root
for i in $(seq 1 30); do deep=$deep/d123456789; done
mkdir -p "$deep"
printf 'deep\n' >"$deep/deep.txt"
