#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# hosts: 3
# timeout: 1800
# parts: device opensm pingpong ipoib
# The platform suite's parts that test the kernel, for a platform whose
# userspace another platform's suite tests in full (Debian 13 with a
# kernel from trixie-backports: rdma-core's Python suite tests the same
# provider, libibverbs and pyverbs on Debian 13's own kernel, and a kernel
# as new on Debian unstable). One boot of 3 guests (run_parts,
# tests/lib.sh).
# shellcheck source=../lib.sh
. "$PIB_SRC/tests/lib.sh"

run_parts
