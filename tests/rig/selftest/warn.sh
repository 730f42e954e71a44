#!/bin/bash
# A scenario that passes while the guest kernel logs a warning: the rig must
# fail it.
echo "WARNING: CPU: 0 PID: 1 at rig self-test" > /dev/kmsg
exit 0
