#!/bin/bash
# A guest that reports the rig's LAN broken, as tests/rig/guest's lan_check
# does: the rig must stop the VMs at once and exit with status 3.
echo "FAIL - rig: LAN: reported on purpose"
sleep 100000
