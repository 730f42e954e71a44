# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# pib top-level Makefile.
#   make            build kernel/pib.ko and provider/libpib-rdmav34.so
#   make deps       install the Debian packages the build, tests and demo need
#   make test       unit tests, then the VM scenario tests (tests/run)
#   make demo       boot a two-host LAN of VMs and show pib on it
#   make bench      compare pib with rdma_rxe on two VMs (not part of make test)
#   make install    install module and provider (DESTDIR-aware)
#   make uninstall  remove what make install installed
#   make deb        Debian packages in $(BUILD)/deb (debian/make-deb.sh)

# Kernel build dir: the running kernel's if present, else the newest
# installed Debian linux-headers-*-amd64.
KDIR ?= $(firstword $(wildcard /lib/modules/$(shell uname -r)/build) \
	$(lastword $(shell ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V)))
KVER = $(shell sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' $(KDIR)/include/generated/utsrelease.h 2>/dev/null)

BUILD ?= $(CURDIR)/build
MULTIARCH := $(shell gcc -print-multiarch)
LIBDIR ?= /usr/lib/$(MULTIARCH)
SYSCONFDIR ?= /etc
DEPMOD ?= /sbin/depmod

RDMA_CORE := $(BUILD)/rdma-core
RDMA_INC := $(RDMA_CORE)/build/include
PROVIDER := $(BUILD)/provider/libpib-rdmav34.so
PROVIDER_SRCS := $(wildcard provider/*.c)
PROVIDER_HDRS := $(wildcard provider/*.h)

PROVIDER_CFLAGS := -std=gnu11 -fPIC -O2 -g -Wall -Wextra -Werror \
	-Wno-unused-parameter -Wno-missing-field-initializers \
	-I$(RDMA_INC) -D_GNU_SOURCE
PROVIDER_LDFLAGS := -shared -Wl,--no-undefined \
	-Wl,--version-script=provider/libpib.map

KERNEL_SRCS := $(wildcard kernel/pib_*.c kernel/pib*.h) kernel/Kbuild

.PHONY: all kernel provider deps install uninstall deb test unit vmtest demo bench clean check-kdir

all: kernel provider

check-kdir:
	@test -n "$(KDIR)" -a -d "$(KDIR)" || { echo "no kernel build dir: install linux-headers-amd64 (make deps) or set KDIR" >&2; exit 1; }

kernel: kernel/pib.ko

kernel/pib.ko: $(KERNEL_SRCS) | check-kdir
	$(MAKE) -C $(KDIR) M=$(CURDIR)/kernel CONFIG_INFINIBAND_PIB=m modules

provider: $(PROVIDER)

$(RDMA_INC)/kernel-abi/ib_user_verbs.h: provider/rdma-core.sh
	bash provider/rdma-core.sh $(RDMA_CORE)

$(PROVIDER): $(PROVIDER_SRCS) $(PROVIDER_HDRS) provider/libpib.map kernel/pib_abi.h $(RDMA_INC)/kernel-abi/ib_user_verbs.h
	@mkdir -p $(dir $@)
	$(CC) $(PROVIDER_CFLAGS) $(PROVIDER_LDFLAGS) -o $@ $(PROVIDER_SRCS) -libverbs -lpthread

deps:
	bash tests/deps.sh

install: all
	install -D -m 644 kernel/pib.ko $(DESTDIR)/lib/modules/$(KVER)/updates/pib.ko
	$(DEPMOD) $(if $(DESTDIR),-b $(DESTDIR)) $(KVER)
	install -D -m 755 $(PROVIDER) $(DESTDIR)$(LIBDIR)/libibverbs/libpib-rdmav34.so
	install -D -m 644 provider/pib.driver $(DESTDIR)$(SYSCONFDIR)/libibverbs.d/pib.driver

# Removes providers of any private ABI (one installed before an rdma-core
# upgrade too), but leaves the files of installed packages (make deb) alone.
INSTALLED = $(DESTDIR)/lib/modules/$(KVER)/updates/pib.ko \
	$(wildcard $(DESTDIR)$(LIBDIR)/libibverbs/libpib-rdmav*.so) \
	$(DESTDIR)$(SYSCONFDIR)/libibverbs.d/pib.driver
uninstall:
	@for f in $(INSTALLED); do \
		if [ -z "$(DESTDIR)" ] && dpkg-query -S "$$f" >/dev/null 2>&1; then \
			echo "$$f: installed by a package, left alone (remove that with apt)"; \
		elif [ -e "$$f" ]; then \
			rm -v "$$f"; \
		fi; \
	done
	$(DEPMOD) $(if $(DESTDIR),-b $(DESTDIR)) $(KVER)

# pib-dkms, ibverbs-provider-pib and pib-tools, built with dpkg-buildpackage
# from a copy of this tree; the provider build reuses $(RDMA_CORE).
deb: provider
	PIB_RDMA_CORE=$(abspath $(RDMA_CORE)) bash debian/make-deb.sh $(BUILD)/deb

unit:
	$(MAKE) -C tests/unit

vmtest: all
	bash tests/run --kver $(KVER)

test: unit vmtest

demo: all
	bash tests/demo --kver $(KVER)

bench: all
	bash tests/bench/run --kver $(KVER)

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR)/kernel clean 2>/dev/null || true
	$(MAKE) -C tests/unit clean
	rm -rf $(BUILD)/provider $(BUILD)/rig
