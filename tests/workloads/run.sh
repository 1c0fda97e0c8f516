#!/usr/bin/env bash
# tests/workloads/run.sh root|nobody [DRIVER [pytest args...]]
#
# Runs the workload suite (this directory) as the caller (`root`) or as an
# unprivileged caller (`nobody`: uid/gid 65534 through setpriv when run as
# root, the caller itself when it is already unprivileged), on a tree the
# running user owns, in a fresh temporary directory removed afterwards.
# DRIVER is the C API driver (build/tests/workloads/pathgate-wl-exec);
# PYTHONPATH must name the build's python directory. ctest runs both modes
# (label `workloads`); `root` exits 77 (skipped) when the caller is not root.
set -euo pipefail
mode=${1:?usage: run.sh root|nobody [DRIVER [pytest args...]]}
shift
driver=${1:-${PATHGATE_WORKLOADS_DRIVER:-}}
shift || true
here=$(cd "$(dirname "$0")" && pwd)
python=${PATHGATE_PYTHON:-/usr/bin/python3}
: "${PYTHONPATH:?PYTHONPATH must name the python directory of the build}"

as=()
case $mode in
  root)
    if [ "$(id -u)" -ne 0 ]; then
      echo "workloads_root: the caller is not root; skipped (workloads_nobody runs as the caller)"
      exit 77
    fi ;;
  nobody)
    if [ "$(id -u)" -eq 0 ]; then
      as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
    fi ;;
  *) echo "run.sh: unknown mode $mode" >&2; exit 64 ;;
esac

base=$(mktemp -d /tmp/pathgate-workloads-XXXXXX)
trap 'rm -rf "$base"' EXIT
mkdir "$base/home"
if [ ${#as[@]} -gt 0 ]; then
  chown -R 65534:65534 "$base"
  # Everything the unprivileged caller needs must be readable by it: say
  # so plainly instead of failing somewhere inside pytest.
  for f in "$here/test_workloads.py" "$PYTHONPATH/pathgate/__init__.py"; do
    "${as[@]}" test -r "$f" || { echo "run.sh: uid 65534 cannot read $f (make the build and"\
      "the source tree world-readable, e.g. umask 022)" >&2; exit 1; }
  done
  if [ -n "$driver" ] && ! "${as[@]}" test -x "$driver"; then
    echo "run.sh: uid 65534 cannot execute $driver" >&2; exit 1
  fi
fi

status=0
"${as[@]}" env HOME="$base/home" PYTHONDONTWRITEBYTECODE=1 PATHGATE_WORKLOADS_DRIVER="$driver" \
  "$python" -m pytest -q -p no:cacheprovider -rfExX --basetemp="$base/pytest" "$here" "$@" \
  || status=$?
exit $status
