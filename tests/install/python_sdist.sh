#!/usr/bin/env bash
# tests/install/python_sdist.sh SOURCE_DIR: builds the Python sdist, builds a
# wheel from the sdist alone (not the checkout), installs the wheel into a
# fresh venv, and runs a smoke test of the module and the command from it.
set -euo pipefail
src=$(cd "$1" && pwd)
py=${PYTHON:-/usr/bin/python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# egg_info goes to the temporary directory, so the checkout stays untouched.
(cd "$src" && "$py" setup.py -q egg_info --egg-base "$tmp" sdist -d "$tmp/dist") >"$tmp/sdist.log" 2>&1 \
  || { cat "$tmp/sdist.log"; exit 1; }
sdist=$(ls "$tmp"/dist/pathgate-*.tar.gz)
listing=$(tar tzf "$sdist")
for member in CMakeLists.txt LICENSE pyproject.toml setup.py python/README.md \
              core/include/pathgate/pathgate.h core/src/resolve/resolver.c bindings/python/module.c \
              cmake/pathgate.pc.in python/pathgate/py.typed; do
  grep -q "^pathgate-[^/]*/$member\$" <<<"$listing" || { echo "sdist lacks $member"; exit 1; }
done

cd "$tmp"
mkdir unpacked && tar xzf "$sdist" -C unpacked
"$py" -m venv --system-site-packages venv
venv/bin/python -m pip wheel -q --no-build-isolation --no-deps --no-index -w wheels "$sdist" >wheel.log 2>&1 \
  || { cat wheel.log; exit 1; }
wheel=$(ls wheels/pathgate-*.whl)
"$py" - "$wheel" <<'PY'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
assert any(n.endswith(".dist-info/LICENSE") for n in names), names
assert any(n.startswith("pathgate/_core") and n.endswith(".abi3.so") for n in names), names
meta = zipfile.ZipFile(sys.argv[1]).read(next(n for n in names if n.endswith("METADATA"))).decode()
assert "build/bin" not in meta, "the wheel's description is the developer README"
assert "License: MIT" in meta
PY
venv/bin/python -m pip install -q --no-index --no-deps "$wheel"

mkdir -p work/docs && echo hello >work/docs/a.txt
cd work
../venv/bin/python - "$tmp" <<'PY'
import sys
import pathgate
assert pathgate.__file__.startswith(sys.argv[1] + "/venv/"), pathgate.__file__
r = pathgate.Resolver(roots={"repo": "."})
res = r.resolve("ROOT_REPO:/docs/../docs/a.txt")
assert res.ok and str(res.ref) == "root:repo/docs/a.txt", res
assert not r.resolve("root:repo/../../etc/passwd").ok
print("sdist: import and resolve ok from", pathgate.__file__.rsplit("/venv/", 1)[1])
PY
../venv/bin/pathgate --root repo=. resolve docs/a.txt | grep -q '^root:repo/docs/a.txt\s'
echo "sdist: $(basename "$sdist") -> $(basename "$wheel") installed and ran"
