#!/bin/bash
# A scenario that never ends: the rig must time it out and stop its VMs.
echo "hanging on purpose"
sleep 100000
