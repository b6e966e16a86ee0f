#!/usr/bin/env bash
# `cpack -G DEB` in the build directory makes a .deb that declares its Debian
# runtime dependencies and holds the binary, the man page, the three
# completion scripts and the guides; unpacked into a scratch root, the binary
# runs. `cmake --install` installs the guides under share/doc/bgtask too.
source "$(dirname "$0")/lib.sh"
: "${BGTASK_BUILD_DIR:?BGTASK_BUILD_DIR must name the build directory}"
for tool in cpack dpkg-deb; do
  command -v "$tool" >/dev/null || skip "$tool is not installed"
done
[ -f "$BGTASK_BUILD_DIR/CPackConfig.cmake" ] || fail "no CPackConfig.cmake in $BGTASK_BUILD_DIR"
# cpack first brings the build up to date; with stale binaries that would
# rebuild them under the tests running next to this one.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
oldest=$BGTASK
for binary in "$BGTASK_BUILD_DIR"/tests/bgtask_*_tests; do
  if [ -e "$binary" ] && [ "$binary" -ot "$oldest" ]; then oldest=$binary; fi
done
stale=$(find "$ROOT/lib" "$ROOT/apps" "$ROOT/tests/unit" "$ROOT/tests/e2e" "$ROOT/cmake" "$ROOT/CMakeLists.txt" \
  "$ROOT/docs/bgtask.1.scd" \
  -type f -newer "$oldest" -print -quit)
[ -z "$stale" ] || skip "the build is older than $stale; build it first"

# The package and CPack's staging tree go to the work directory, not the build.
(cd "$WORK" && cpack --config "$BGTASK_BUILD_DIR/CPackConfig.cmake" -G DEB -B "$WORK/package") \
  >"$WORK/cpack.log" 2>&1 || fail "cpack failed: $(cat "$WORK/cpack.log")"
debs=("$WORK"/package/bgtask_*.deb)
[ ${#debs[@]} -eq 1 ] && [ -f "${debs[0]}" ] || fail "cpack made no single .deb: $(ls "$WORK/package")"
deb=${debs[0]}

[ "$(dpkg-deb -f "$deb" Package)" = bgtask ] || fail "package name: $(dpkg-deb -f "$deb" Package)"
version=$("$BGTASK" --version | awk '{ print $2 }')
[ "$(dpkg-deb -f "$deb" Version)" = "$version" ] || fail "package version differs from bgtask --version"
depends=$(dpkg-deb -f "$deb" Depends)
needed=$(readelf -d "$BGTASK" | grep -c '(NEEDED)' || true)
if [ "$needed" -gt 0 ]; then
  for library in libboost-json1.81.0 libboost-program-options1.81.0 libc6 libstdc++6; do
    [[ $depends == *"$library"* ]] || fail "Depends lacks $library: $depends"
  done
else # a static binary (the Release default) needs no shared library
  [ -z "$depends" ] || fail "a static binary's package depends on: $depends"
fi

recommends=$(dpkg-deb -f "$deb" Recommends)
for package in man-db bash-completion; do
  [[ $recommends == *"$package"* ]] || fail "Recommends lacks $package: $recommends"
done

contents=$(dpkg-deb -c "$deb" | awk '{ print $NF }')
for path in ./usr/bin/bgtask ./usr/share/man/man1/bgtask.1.gz \
  ./usr/share/bash-completion/completions/bgtask ./usr/share/zsh/vendor-completions/_bgtask \
  ./usr/share/fish/vendor_completions.d/bgtask.fish ./usr/share/doc/bgtask/README.md \
  ./usr/share/doc/bgtask/docs/agents.md ./usr/share/doc/bgtask/docs/pitfalls.md \
  ./usr/share/doc/bgtask/docs/record.schema.json; do
  grep -qxF "$path" <<<"$contents" || fail "the package lacks $path"
done

root="$WORK/root"
dpkg -x "$deb" "$root"
[ "$("$root/usr/bin/bgtask" --version)" = "bgtask $version" ] || fail "the packaged binary does not run"
BGTASK_DIR="$D" "$root/usr/bin/bgtask" list >/dev/null || fail "the packaged binary cannot list"
zcat "$root/usr/share/man/man1/bgtask.1.gz" | cmp -s - "$BGTASK_BUILD_DIR/man/bgtask.1" ||
  fail "the packaged man page differs from the one the build made"
bash -n "$root/usr/share/bash-completion/completions/bgtask" || fail "the packaged bash completion"
for doc in "$ROOT"/docs/*.md "$ROOT/docs/record.schema.json"; do
  cmp -s "$doc" "$root/usr/share/doc/bgtask/docs/${doc##*/}" || fail "the package lacks docs/${doc##*/} or differs"
done

# cmake --install puts the same guides under the prefix.
cmake --install "$BGTASK_BUILD_DIR" --prefix "$WORK/prefix" >"$WORK/install.log" 2>&1 ||
  fail "cmake --install failed: $(cat "$WORK/install.log")"
for doc in "$ROOT/README.md" "$ROOT"/docs/*.md "$ROOT/docs/record.schema.json"; do
  relative=${doc#"$ROOT"/}
  cmp -s "$doc" "$WORK/prefix/share/doc/bgtask/$relative" || fail "cmake --install lacks $relative"
done
echo ok
