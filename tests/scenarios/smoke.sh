#!/bin/bash
# hosts: 1
set -ex
uname -a
ip addr
ls /lib/modules/$(uname -r)/kernel/drivers/infiniband/sw
