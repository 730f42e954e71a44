#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# pyverbs-build.sh SRC [BUILD]: build rdma-core's Python test suite
# (pyverbs and tests/run_tests.py) for the pyverbs scenario, from the
# rdma-core source that provider/rdma-core.sh unpacked in BUILD (default
# SRC/build; on a test platform, run inside its root, see tests/run).
#
# Debian 12 ships pyverbs 44 without the tests, and the tests of the source
# we have (56.1, as 44's cannot be downloaded) need its own pyverbs, so
# rdma-core is built in place (libibverbs, librdmacm, pyverbs) in
# BUILD/rdma-core/py. Its libibverbs loads a provider of its own, built
# against that source (make provider for that version), through a driver
# file of its own. Prints the path of run_tests.py; BUILD/rdma-core/py/suite
# is the directory of the suite's modules (test_*.py) either way.
#
# pyverbs-build.sh SRC BUILD packaged: use the suite of the installed
# rdma-core instead (Debian 13 on ship it, compressed, with python3-pyverbs
# in /usr/share/doc/rdma-core/tests): unpacked into BUILD/rdma-core/py, it
# runs on the installed pyverbs and libibverbs, which load the installed
# libpib. This is what the test platforms' roots use.
set -euo pipefail
src=$(cd "${1:?usage: pyverbs-build.sh SRC [BUILD [packaged]]}" && pwd)
build=${2:-$src/build}
if [ "${3:-}" = packaged ]; then
	doc=/usr/share/doc/rdma-core/tests
	py=$build/rdma-core/py
	[ -f "$doc/run_tests.py" ] || { echo "pyverbs-build.sh: no $doc/run_tests.py (python3-pyverbs)" >&2; exit 1; }
	rm -rf "$py" && mkdir -p "$py/bin"
	cp -r "$doc" "$py/tests"
	gzip -d "$py"/tests/*.gz
	ln -sfn "$py/tests" "$py/suite"
	printf '#!/bin/bash\nexec python3 %s "$@"\n' "$py/tests/run_tests.py" > "$py/bin/run_tests.py"
	echo "$py/bin/run_tests.py"
	exit 0
fi
rc=$build/rdma-core/$(bash "$src/provider/rdma-core.sh" version)
py=$build/rdma-core/py
die() { echo "pyverbs-build.sh: $*" >&2; exit 1; }

[ -f "$rc/src/CMakeLists.txt" ] || die "no rdma-core source in $rc/src: run make first"
ver=$(sed -n 's/^set(PACKAGE_VERSION "\([0-9.]*\)")/\1/p' "$rc/src/CMakeLists.txt")
pabi=$(sed -n 's/^set(IBVERBS_PABI_VERSION "\([0-9]*\)")/\1/p' "$rc/src/CMakeLists.txt")
RDMA_CORE_TARBALL=$rc/source.tar make -s -C "$src" provider BUILD="$py/pib" \
	RDMA_CORE_VERSION="$ver" PABI="$pabi" >"$py.provider.log" 2>&1 ||
	die "building the provider for rdma-core $ver failed, see $py.provider.log"
provider=$py/pib/provider/libpib-rdmav$pabi.so
command -v cython3 >/dev/null || die "cython3 is missing (make deps)"
mkdir -p "$py"
# What the suite loads: pyverbs' modules (the vendors' among them, which
# every run imports), the libraries they link and rdma_rxe's provider (the
# pyverbs scenario's comparison); not the rest of rdma-core (the other
# providers, the diagnostics, the daemons: a fifth of the build). -O1 and
# no debug information, not -O2 -g: Cython's C is most of the build, and
# it took 174 CPU seconds instead of 254.
if [ ! -f "$py/.built" ]; then
	(cd "$py" && cmake -DIN_PLACE=1 -DNO_MAN_PAGES=1 -DENABLE_STATIC=0 \
		-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 \
		-DPYTHON_EXECUTABLE=/usr/bin/python3 "$rc/src" >cmake.log 2>&1) ||
		die "cmake failed, see $py/cmake.log"
	mapfile -t targets < <(make -s -C "$py" help | sed -n 's/^\.\.\. \(.*\.cpython-.*\)$/\1/p')
	[ ${#targets[@]} -gt 0 ] || die "no pyverbs module to build: cython3 missing? see $py/cmake.log"
	make -C "$py" -j"$(nproc)" "${targets[@]}" ibverbs rdmacm rxe-rdmav"$pabi" \
		>"$py/make.log" 2>&1 || die "build failed, see $py/make.log"
	# (libibverbs warns of a driver file whose provider is missing, in
	# the middle of the suite's output)
	for f in "$py"/etc/libibverbs.d/*.driver; do
		read -r _ lib <"$f"
		[ -e "$lib-rdmav$pabi.so" ] || rm -f "$f"
	done
	touch "$py/.built"
fi
echo "driver ${provider%-rdmav*.so}" >"$py/etc/libibverbs.d/pib.driver"
ln -sfn "$rc/src/tests" "$py/suite"
echo "$py/bin/run_tests.py"
