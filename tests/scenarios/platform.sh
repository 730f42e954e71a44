#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# hosts: 3
# timeout: 2400
# parts: device opensm pingpong ipoib pyverbs
# The platform suite (tests/platform/suite) on one LAN of guests: its
# parts, scenarios of their own on the default platform, one after the
# other in one boot of 3 guests (run_parts, tests/lib.sh), where the parts
# alone boot 9.
# shellcheck source=../lib.sh
. "$PIB_SRC/tests/lib.sh"

run_parts
