#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# pyverbs-build.sh SRC: build rdma-core's Python test suite (pyverbs and
# tests/run_tests.py) for the pyverbs scenario, from the rdma-core source
# that provider/rdma-core.sh unpacked.
#
# Debian 12 ships pyverbs 44 without the tests, and the tests of the source
# we have (56.1) need its own pyverbs, so rdma-core is built in place
# (libibverbs, librdmacm, pyverbs) in build/rdma-core/py. Its libibverbs has
# the provider ABI of the installed one (rdma-core.sh checked that), and
# loads pib's provider from build/provider through a driver file of its own.
# Prints the path of run_tests.py.
set -euo pipefail
src=$(cd "${1:?usage: pyverbs-build.sh SRC}" && pwd)
rc=$src/build/rdma-core
py=$rc/py
provider=$src/build/provider/libpib-rdmav34.so
die() { echo "pyverbs-build.sh: $*" >&2; exit 1; }

[ -f "$rc/src/CMakeLists.txt" ] || die "no rdma-core source in $rc/src: run make first"
[ -f "$provider" ] || die "no $provider: run make first"
command -v cython3 >/dev/null || die "cython3 is missing (make deps)"
mkdir -p "$py"
if [ ! -f "$py/bin/run_tests.py" ] || [ ! -d "$py/python/pyverbs" ]; then
	(cd "$py" && cmake -DIN_PLACE=1 -DNO_MAN_PAGES=1 -DENABLE_STATIC=0 \
		-DPYTHON_EXECUTABLE=/usr/bin/python3 "$rc/src" >cmake.log 2>&1) ||
		die "cmake failed, see $py/cmake.log"
	make -C "$py" -j"$(nproc)" >"$py/make.log" 2>&1 ||
		die "build failed, see $py/make.log"
fi
echo "driver ${provider%-rdmav*.so}" >"$py/etc/libibverbs.d/pib.driver"
echo "$py/bin/run_tests.py"
