# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# pib top-level Makefile.
#   make            build build/kernel/KVER/pib.ko, build/provider/libpib-rdmav<PABI>.so
#                   and build/sm/pib-sm
#   make deps       install the Debian packages the build, tests and demo need
#   make lint       W=1, sparse, kernel-doc and checkpatch --strict on kernel/,
#                   each at zero warnings (tests/lint.sh; make test runs it)
#   make test       unit tests, then the VM scenario tests (tests/run) on the
#                   default platform (this Debian 12 machine) and the platform
#                   suite on the others (tests/platform/platforms)
#   make test PLATFORM=debian13   the whole suite on one platform
#   make demo       boot a two-host LAN of VMs and show pib on it
#   make bench      compare pib with rdma_rxe on two VMs (not part of make test)
#   make test-debug the safety, lifetime and data-path scenarios on a debug
#                   kernel (KASAN, lockdep, kmemleak; built once, hours; not
#                   part of make test)
#   make install    install module and provider (DESTDIR-aware)
#   make uninstall  remove what make install installed
#   make deb        Debian packages in $(BUILD)/deb (debian/make-deb.sh)

# Kernel build dir: the running kernel's if present, else the newest
# installed Debian linux-headers-*-amd64. Both are worked out once (:=),
# and not at all when given: each $(shell) is a process or three, and an
# emulated test guest's `make install` spent seconds recomputing them.
ifeq ($(origin KDIR),undefined)
KDIR := $(firstword $(wildcard /lib/modules/$(shell uname -r)/build) \
	$(lastword $(shell ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V)))
endif
ifeq ($(origin KVER),undefined)
KVER := $(shell sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' $(KDIR)/include/generated/utsrelease.h 2>/dev/null)
endif

BUILD ?= $(CURDIR)/build
# (recursive: gcc runs only for the targets that install)
LIBDIR ?= /usr/lib/$(shell gcc -print-multiarch)
SYSCONFDIR ?= /etc
SBINDIR ?= /usr/local/sbin
DEPMOD ?= /sbin/depmod

# The provider is built against the rdma-core source of the installed
# libibverbs (provider/rdma-core.sh), and named after its private ABI.
RDMA_CORE_VERSION ?= $(shell bash provider/rdma-core.sh version 2>/dev/null)
RDMA_CORE_VERSION := $(RDMA_CORE_VERSION)
PABI ?= $(shell bash provider/rdma-core.sh pabi 2>/dev/null)
PABI := $(PABI)
RDMA_CORE = $(BUILD)/rdma-core/$(RDMA_CORE_VERSION)
RDMA_INC = $(RDMA_CORE)/build/include
PROVIDER := $(BUILD)/provider/libpib-rdmav$(PABI).so
PROVIDER_SRCS := $(wildcard provider/*.c)
PROVIDER_HDRS := $(wildcard provider/*.h)

# $(RDMA_CORE)/public exists when the exact source was not available (see
# provider/rdma-core.sh): the installed libibverbs' public headers first.
# Whether that libibverbs has ibv_wr_flush(), which no macro tells
# (provider/pib_verbs_compat.h): the first verbs.h on the include path says.
IBV_HAS_FLUSH = $(shell for d in $(RDMA_CORE)/public $(RDMA_INC); do \
	test -f $$d/infiniband/verbs.h || continue; \
	grep -q 'wr_flush' $$d/infiniband/verbs.h && echo 1 || echo 0; break; done)
PROVIDER_CFLAGS = -std=gnu11 -fPIC -O2 -g -Wall -Wextra -Werror \
	-Wno-unused-parameter -Wno-missing-field-initializers \
	-I$(UAPI) -I$(RDMA_CORE)/public -I$(RDMA_INC) -D_GNU_SOURCE \
	-DPIB_IBV_HAS_FLUSH=$(or $(IBV_HAS_FLUSH),0)
PROVIDER_LDFLAGS := -shared -Wl,--no-undefined \
	-Wl,--version-script=provider/libpib.map

# pib-sm, the subnet manager (userspace-sm/): C11 on libibmad and libibumad.
SM_SRCS := $(wildcard userspace-sm/*.c)
SM_HDRS := $(wildcard userspace-sm/*.h)
PIB_SM := $(BUILD)/sm/pib-sm
# (_DEFAULT_SOURCE: POSIX 2008 and glibc's endian.h, which rdma-core 56's
# umad.h uses)
SM_CFLAGS := -std=c11 -D_DEFAULT_SOURCE -O2 -g -Wall -Wextra -Werror -Iinclude/uapi

KERNEL_SRCS := $(wildcard kernel/pib_*.c kernel/pib*.h) kernel/Kbuild
# The ABI shared by pib.ko and the provider (<rdma/pib-abi.h>).
UAPI := include/uapi
ABI_HDR := $(UAPI)/rdma/pib-abi.h
# The module is built from a copy of kernel/ per kernel version, so that one
# tree builds for several kernels (test platforms, DKMS-like use); the ABI
# header goes to BUILD/kernel/include/uapi, where kernel/Kbuild looks for it
# (../include/uapi), the same for each.
KOBJ := $(BUILD)/kernel/$(KVER)
MODULE := $(KOBJ)/pib.ko

.PHONY: all kernel provider sm provider-check provider-check-65 deps install uninstall deb test test-debug unit lint demo bench clean check-kdir

all: kernel provider sm

sm: $(PIB_SM)

$(PIB_SM): $(SM_SRCS) $(SM_HDRS) include/uapi/rdma/pib-abi.h
	@mkdir -p $(dir $@)
	$(CC) $(SM_CFLAGS) -o $@ $(SM_SRCS) -libmad -libumad

check-kdir:
	@test -n "$(KDIR)" -a -d "$(KDIR)" || { echo "no kernel build dir: install linux-headers-amd64 (make deps) or set KDIR" >&2; exit 1; }

kernel: $(MODULE)

$(MODULE): $(KERNEL_SRCS) $(ABI_HDR) | check-kdir
	@mkdir -p $(KOBJ) $(BUILD)/kernel/$(dir $(ABI_HDR))
	cp -p $(KERNEL_SRCS) $(KOBJ)/
	cp -p $(ABI_HDR) $(BUILD)/kernel/$(ABI_HDR)
	$(MAKE) -C $(KDIR) M=$(KOBJ) CONFIG_INFINIBAND_PIB=m modules

provider: $(PROVIDER)

$(RDMA_INC)/kernel-abi/ib_user_verbs.h: provider/rdma-core.sh provider/debian-uri.sh
	bash provider/rdma-core.sh headers "$(RDMA_CORE_VERSION)" $(RDMA_CORE)
	@touch $@

$(PROVIDER): $(PROVIDER_SRCS) $(PROVIDER_HDRS) provider/libpib.map $(ABI_HDR) $(RDMA_INC)/kernel-abi/ib_user_verbs.h
	@test -n "$(PABI)" || bash provider/rdma-core.sh pabi >/dev/null || exit 1; \
	 test -n "$(PABI)" || { echo "no private ABI of libibverbs (PABI)" >&2; exit 1; }
	@mkdir -p $(dir $@)
	$(CC) $(PROVIDER_CFLAGS) $(PROVIDER_LDFLAGS) -o $@ $(PROVIDER_SRCS) -libverbs -lpthread

# A compile check of the provider against another rdma-core version's
# headers (no link: its libibverbs is not installed here), e.g.
#   make provider-check RDMA_CORE_VERSION=65.0
# provider-check-65 is the one make test runs: rdma-core 65 (Debian sid).
provider-check: $(RDMA_INC)/kernel-abi/ib_user_verbs.h
	@for f in $(PROVIDER_SRCS); do \
		echo "  CHECK   $$f (rdma-core $(RDMA_CORE_VERSION))"; \
		$(CC) $(PROVIDER_CFLAGS) -fsyntax-only $$f || exit 1; \
	done

provider-check-65:
	$(MAKE) provider-check RDMA_CORE_VERSION=65.0

deps:
	bash tests/deps.sh

install: all
	install -D -m 644 $(MODULE) $(DESTDIR)/lib/modules/$(KVER)/updates/pib.ko
	$(DEPMOD) $(if $(DESTDIR),-b $(DESTDIR)) $(KVER)
	install -D -m 755 $(PROVIDER) $(DESTDIR)$(LIBDIR)/libibverbs/$(notdir $(PROVIDER))
	install -D -m 644 provider/pib.driver $(DESTDIR)$(SYSCONFDIR)/libibverbs.d/pib.driver
	install -D -m 755 tools/pib-fabric $(DESTDIR)$(SBINDIR)/pib-fabric
	install -D -m 755 $(PIB_SM) $(DESTDIR)$(SBINDIR)/pib-sm

# Removes providers of any private ABI (one installed before an rdma-core
# upgrade too), but leaves the files of installed packages (make deb) alone.
INSTALLED = $(DESTDIR)/lib/modules/$(KVER)/updates/pib.ko \
	$(wildcard $(DESTDIR)$(LIBDIR)/libibverbs/libpib-rdmav*.so) \
	$(DESTDIR)$(SYSCONFDIR)/libibverbs.d/pib.driver \
	$(DESTDIR)$(SBINDIR)/pib-fabric \
	$(DESTDIR)$(SBINDIR)/pib-sm
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

lint:
	KDIR=$(KDIR) BUILD=$(BUILD) bash tests/lint.sh

# Every test: the unit tests and fuzzing (tests/run starts with them), the
# default platform's whole suite, then the platform suite on every other
# platform. PLATFORM=NAME: all of it on NAME only.
test: all
	bash tests/run --kver $(KVER) $(if $(PLATFORM),--platform $(PLATFORM),--all-platforms)

# The debug platform: Debian's 6.1 built with KASAN, lockdep, atomic-sleep
# checks and kmemleak (tests/platform/debug-kernel.sh, cached in
# build/debug-kernel/). Guests are several times slower there.
DEBUG_SCENARIOS ?= safety-local teardown-flood hostile verbs-onehost integrity changes ipoib
test-debug: all
	PIB_TIMEOUT_FACTOR=$${PIB_TIMEOUT_FACTOR:-4} PIB_VM_MEM=$${PIB_VM_MEM:-2048} \
		bash tests/run --kver $(KVER) --platform debian12-debug $(DEBUG_SCENARIOS)

demo: all
	bash tests/demo --kver $(KVER)

bench: all
	bash tests/bench/run --kver $(KVER)

clean:
	$(MAKE) -C tests/unit clean
	rm -rf $(BUILD)/kernel $(BUILD)/provider $(BUILD)/rig
