#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# hosts: 2
# timeout: 2400
# disk: headers
# pib as a user of its Debian packages (make deb) gets it, on host1: apt
# installs them, DKMS builds the module for the running kernel inside the
# guest (its compiles through ccache: dkms_ccache below), "rdma link add"
# loads it, opensm brings the fabric up, ib_send_bw runs to host2 through
# the packaged provider, and IPoIB carries ping and rping (rdma_cm);
# tshark decodes pib's packets through the packaged dissector without
# being told about it. host2 runs pib built from source (make install), as
# a peer of another origin would: one DKMS build per run, not two. On a
# root with two kernels (Debian 13 and its backports), host1 has no
# kernel headers when apt installs the packages: DKMS skips the build
# (pib is "added"), and builds pib once the running kernel's headers come,
# as for a user who installs them later. (The other kernel's DKMS build
# would be the same compiler, headers and make command as debian13-bpo's
# build, only under emulation; the version rule of dkms.conf, the one
# thing DKMS decides per kernel, is checked for 6.x and 7.x.) Purging the
# packages leaves nothing of pib behind. The packages must be built
# before the run (make deb); the guest has no network, so their
# dependencies come from the root (mkroot.sh keeps the headers' packages).
# One CPU a guest: with two, host1's DKMS build took no less time, and the
# run cost the host 563 CPU seconds instead of 447.
# shellcheck source=../lib.sh
. "$PIB_SRC/tests/lib.sh"

debs=${PIB_BUILD:-$PIB_SRC/build}/deb
kver=$(uname -r)
libdir=/usr/lib/$(gcc -print-multiarch)
cap=$PIB_RESULTS/host1.pcapng
export DEBIAN_FRONTEND=noninteractive

# pib_leftovers: every file of pib that the packages install or DKMS builds.
pib_leftovers() {
	ls -d /usr/src/pib-* /var/lib/dkms/pib /lib/modules/*/updates/dkms/pib.ko* \
		"$libdir"/libibverbs/libpib-rdmav*.so /etc/libibverbs.d/pib.driver \
		"$libdir"/wireshark/plugins/pib.lua /usr/sbin/pib-fabric /usr/sbin/pib-sm \
		/lib/systemd/system/pib-sm.service /usr/lib/systemd/system/pib-sm.service 2>/dev/null
}

# The guest has no network: its apt is told of no repositories. Their
# package lists, the root's (Debian's whole index), are of no use to it,
# and parsing them cost every apt-get here 30 s of emulated time; what the
# packages depend on is installed in the root.
mkdir -p /run/pib-apt/lists/partial
cat >/run/pib-apt/apt.conf <<'EOF_APT'
Dir::State::Lists "/run/pib-apt/lists";
Dir::Etc::SourceList "/dev/null";
Dir::Etc::SourceParts "/run/pib-apt/lists";
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
EOF_APT
export APT_CONFIG=/run/pib-apt/apt.conf

# What systemd makes on a real host, and the rig's guest does not: DKMS
# needs /dev/fd for bash's process substitution.
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
for i in 0:stdin 1:stdout 2:stderr; do
	[ -e "/dev/${i#*:}" ] || ln -s "/proc/self/fd/${i%%:*}" "/dev/${i#*:}"
done

# headers_from_disk: the running kernel's headers and kbuild scripts (those
# installed now) from the rig's disk of them (rig/lan --headers: the
# root's, the same files), each over its directory as an overlay that DKMS
# may write to. The rig's guest reads its root over 9p, where each lookup
# is a round trip to the host and a miss is not cached: a kernel build's
# header search (74,000 file calls for one file) kept DKMS at it for 20
# minutes under emulation, twice as long as from RAM; from this disk it is
# no slower than from RAM (Debian 13's build: 423 s, against 462 s), and
# nothing needs copying first. What DKMS builds, and how, is the same; a
# real host's disk has no such cost. (Headers that apt installs later are
# written to the guest's RAM anyway.) The disk also has the modules of the
# kernel that a guest of the rig may load (file systems, networking,
# InfiniBand; not the drivers of hardware it lacks: headers-image.sh), in
# place of the root's: DKMS's depmod reads every module, and the 4,000 of
# Debian 12 took it two minutes over 9p, at install and again at purge.
headers_from_disk() {
	local d dev="" img=/run/pib-headers ram=/run/pib-headers-rw start=$SECONDS mounted=()
	modprobe -a virtio_blk ext4 || { fail "modprobe virtio_blk ext4"; return 1; }
	for _ in $(seq 50); do
		dev=$(grep -l '^pib-headers$' /sys/block/vd*/serial 2>/dev/null | head -n 1)
		[ -n "$dev" ] && break
		sleep 0.2
	done
	dev=${dev%/serial}
	[ -n "$dev" ] || { fail "the rig's disk of kernel headers (# disk: headers)"; return 1; }
	mkdir -p $img && mount -o ro "/dev/${dev##*/}" $img ||
		{ fail "mount the headers' disk"; return 1; }
	for d in $(cd $img && find usr -mindepth 2 -maxdepth 2 -type d -name 'linux-*'); do
		# (purged: apt installs it later)
		[ -d "/$d" ] && ! grep -sqxF "/$d" $hidden || continue
		mkdir -p "$ram/upper/$d" "$ram/work/$d"
		mount -t overlay overlay -o "lowerdir=$img/$d,upperdir=$ram/upper/$d,workdir=$ram/work/$d" "/$d" ||
			{ fail "kernel headers from disk: /$d"; return 1; }
		mounted+=("/$d")
	done
	d=lib/modules/$kver/kernel
	if [ -d "$img/$d" ]; then
		mount --bind "$img/$d" "/$d" || { fail "modules from disk: /$d"; return 1; }
		mounted+=("/$d")
	fi
	ok "kernel headers and modules from the rig's disk (${mounted[*]}, $((SECONDS - start)) s)"
}

# DKMS's compiler calls go through ccache (Debian's kernel headers do so
# when DEBIAN_KERNEL_USE_CCACHE is set), with the cache that tests/run made
# before the run by the same DKMS build outside the guest, from the same
# package with the same compiler, headers and paths
# (tests/platform/dkms-ccache.sh). Everything of DKMS and kbuild runs in
# the guest as on a user's host; only gcc's work on each object is found
# in the cache instead of done again, emulated: 25 minutes a build. An
# input that differs from the cache's would compile for real, and fail
# dkms_ccache_used.
ccache_dir=/run/pib-ccache
dkms_ccache() {
	check "the rig's ccache of pib's DKMS build for $kver" \
		cp -a "$PIB_BUILD/dkms-ccache/$kver" $ccache_dir || return 0
	export DEBIAN_KERNEL_USE_CCACHE=1 CCACHE_DIR=$ccache_dir
	ccache -z >/dev/null
}

# dkms_ccache_used: DKMS's build found every object in the cache.
dkms_ccache_used() {
	local st hits
	st=$(ccache --print-stats)
	hits=$(awk '$1 ~ /^(direct|preprocessed)_cache_hit$/ { n += $2 } END { print n + 0 }' <<<"$st")
	expect_eq "DKMS compiled nothing in the guest (ccache misses)" \
		"$(awk '$1 == "cache_miss" { print $2 }' <<<"$st")" 0
	check "DKMS's compiles ($hits) came from the rig's ccache" test "$hits" -gt 0
	unset DEBIAN_KERNEL_USE_CCACHE CCACHE_DIR
}

# purge_headers KVER WHY: apt purges linux-headers-KVER. Its directories
# under /usr/src and /usr/lib are hidden first, each under an empty tmpfs:
# removing their files one by one, read over 9p and hidden in the
# overlay, took dpkg 80 s of emulated time for the two. apt and dpkg
# still do all they do for a purge but that; the directories stay
# empty (/run/pib-hidden lists them: headers_from_disk leaves them so),
# and the headers that apt installs later are written there.
hidden=/run/pib-hidden
purge_headers() {
	local d
	touch $hidden
	for d in $(dpkg-query -L "linux-headers-$1" |
		grep -E '^/usr/(src|lib)/linux-(headers|kbuild)-[^/]+$'); do
		mount -t tmpfs -o mode=755 pib-hidden "$d" && echo "$d" >>$hidden ||
			fail "hide $d"
	done
	check "apt-get purge linux-headers-$1: $2" apt-get purge -y "linux-headers-$1"
}

# packages_install: what host1 does before the fabric: on a root with
# other kernels' headers, they and the running kernel's go first (those
# come after the packages); then apt installs the three packages and DKMS
# builds pib.
packages_install() {
	local d k pkgs start out later="" opts=()
	for d in /var/cache/pib-headers/*/; do
		k=$(basename "$d")
		[ "$k" != "$kver" ] && [ -d "/usr/src/linux-headers-$k" ] || continue
		purge_headers "$k" "another kernel's headers"
		later=$kver
	done
	[ -z "$later" ] || purge_headers "$kver" "the running kernel's come later"

	pkgs=("$debs"/pib-dkms_*_all.deb "$debs"/ibverbs-provider-pib_*.deb "$debs"/pib-tools_*.deb)
	check "make deb built the three packages (${pkgs[*]##*/})" ls "${pkgs[@]}" || pib_done
	expect_eq "no pib module or provider before the packages" "$(pib_leftovers)" ""
	check "no pib.ko anywhere before the packages" sh -c "! modinfo -n pib"

	# Headers later: the packages without pib-dkms' recommended headers.
	if [ -n "$later" ]; then
		opts=(--no-install-recommends)
	else
		headers_from_disk
	fi
	dkms_ccache
	start=$SECONDS
	if out=$(apt-get install -y "${opts[@]}" "${pkgs[@]}" 2>&1); then
		ok "apt-get install ${opts[*]} ./pib-dkms ./ibverbs-provider-pib ./pib-tools ($((SECONDS - start)) s)"
		sed -n '/^Setting up pib-dkms/,$p' <<<"$out"
		expect_no_match "DKMS reports no failed step nor deprecated feature" "$out" \
			'bad exit status|[Dd]eprecated'
	else
		fail "apt-get install ./pib-dkms ./ibverbs-provider-pib ./pib-tools:"
		sed 's/^/    /' <<<"$out"
		pib_done
	fi
	if [ -n "$later" ]; then
		dkms status -m pib
		expect_match "without headers, DKMS only added pib" "$(dkms status -m pib)" \
			"^pib/[^:]*: added\$"
		check_fails "no pib.ko without headers" "not found" modinfo -n pib
		headers_from_disk
		start=$SECONDS
		if out=$(apt-get install -y /var/cache/pib-headers/"$kver"/*.deb 2>&1); then
			ok "apt-get install linux-headers-$kver later: DKMS builds pib ($((SECONDS - start)) s)"
		else
			fail "apt-get install linux-headers-$kver:"
			sed 's/^/    /' <<<"$out"
		fi
		grep -i 'dkms\|pib' <<<"$out"
	fi
	dkms_ccache_used
	dkms status -m pib
	expect_match "dkms status: pib installed for $kver" "$(dkms status -m pib -k "$kver")" \
		": installed"
	dkms_kernel_rule
	expect_match "modinfo: pib.ko from DKMS" "$(modinfo -n pib 2>&1)" \
		"^/lib/modules/${kver//+/\\+}/updates/dkms/pib\.ko"
	check "the provider is installed" ls "$libdir"/libibverbs/libpib-rdmav[0-9]*.so
	expect_eq "its driver file" "$(cat /etc/libibverbs.d/pib.driver)" "driver pib"
	expect_eq "pib-fabric is installed" "$(command -v pib-fabric)" /usr/sbin/pib-fabric
	expect_eq "pib-sm is installed" "$(command -v pib-sm)" /usr/sbin/pib-sm
	expect_match "its systemd unit (not enabled)" \
		"$(cat /lib/systemd/system/pib-sm.service /usr/lib/systemd/system/pib-sm.service 2>/dev/null)" \
		'^ExecStart=/usr/sbin/pib-sm '
	check "pib-sm.service not enabled" sh -c '! ls /etc/systemd/system/*/pib-sm.service'
	# What udev loads on a real host.
	check "modprobe ib_uverbs ib_umad" modprobe -a ib_uverbs ib_umad
}

# dkms_kernel_rule: the kernels dkms.conf's BUILD_EXCLUSIVE_KERNEL lets
# DKMS build for (as DKMS matches it: a bash extended regex on the kernel
# release): 6.1 and later, 7.x and on; not 6.0 or 5.x.
dkms_kernel_rule() {
	local conf re v got=""
	conf=$(ls /usr/src/pib-*/dkms.conf)
	re=$(sed -n 's/^BUILD_EXCLUSIVE_KERNEL="\(.*\)"$/\1/p' "$conf")
	for v in 5.15.0-1-amd64 6.0.0-1-amd64 6.1.0-56-amd64 6.12.117+deb13-amd64 \
		7.2.13+deb14-amd64 7.3.4+deb13-amd64 10.0.1-1-amd64; do
		[[ $v =~ $re ]] && got+="$v "
	done
	expect_eq "dkms.conf builds for 6.1 and later, 7.x included" "$got" \
		"6.1.0-56-amd64 6.12.117+deb13-amd64 7.2.13+deb14-amd64 7.3.4+deb13-amd64 10.0.1-1-amd64 "
}

# host1 installs the packages (packages_install), host2 pib from source.
if [ "$PIB_HOST" = 1 ]; then
	packages_install
else
	pib_install
fi
if [ "$PIB_HOST" = 1 ] && command -v dumpcap >/dev/null; then
	dumpcap -q -i eth0 -f "udp port 4792" -c 200 -w "$cap" 2>/dev/null &
	dumpcap=$!
fi
barrier installed 1800
ipoib_partitions
pib_fabric_up
expect_match "ibstat: port Active" "$(ibstat pibeth0 1 2>&1)" "State: Active"
PAIR_DEV=pibeth0
pair_run send_bw 300 ib_send_bw -n 100 -F
ipoib_up rdma_ucm
barrier ipoib-up
check "ping over ib0" ping -c 3 -W 5 "10.98.0.$((3 - PIB_HOST))"
cm_pair rping 120 rping -s -a 10.98.0.1 -C 10 -S 4000 -V -- \
	rping -c -a 10.98.0.1 -C 10 -S 4000 -V

if [ -n "${dumpcap:-}" ]; then
	kill -INT "$dumpcap" 2>/dev/null
	wait "$dumpcap"
	chmod 644 "$cap"
	# As a user: Wireshark 4.4 (Debian 13) runs no Lua plugin as root.
	out=$(setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME=/tmp \
		tshark -n -r "$cap" -T fields -e frame.protocols 2>/dev/null | sort | uniq -c)
	echo "$out"
	expect_match "tshark (no -X): pib's datagrams decoded as InfiniBand" "$out" \
		'[0-9]+ eth:ethertype:ip:udp:pib:infiniband'
fi

# IPoIB goes while opensm answers its leaves (asked, a dead SM costs the
# device's removal the SA's timeouts, 14 s).
check "ib0 down, ib_ipoib unloaded" modprobe -r ib_ipoib
barrier sent
# The packaged pib-sm takes over from opensm: its SA answers saquery.
if [ "$PIB_HOST" = 1 ]; then
	kill "$(pidof opensm)" 2>/dev/null
	wait_for 20 sh -c '! pidof opensm'
	/usr/sbin/pib-sm -d pibeth0 -g /tmp/pib-sm.lids 2>"$PIB_RESULTS/pib-sm.log" &
	sm=$!
	out=$(wait_for 60 sh -c 'saquery -C pibeth0 NR 2>/dev/null | grep -c "^NodeRecord dump" | grep -qx 4' &&
		saquery -C pibeth0 NR 2>&1)
	expect_eq "packaged pib-sm: saquery finds 2 switches and 2 CAs" \
		"$(grep -c '^NodeRecord dump' <<<"$out")" 4
	check "packaged pib-sm stops on SIGTERM" stops "$sm"
fi
barrier sm-done
check "rdma link delete pibeth0" rdma link delete pibeth0
check "modprobe -r pib" modprobe -r pib
[ "$PIB_HOST" = 1 ] || pib_done

check "apt-get purge pib-dkms ibverbs-provider-pib pib-tools" \
	apt-get purge -y pib-dkms ibverbs-provider-pib pib-tools
expect_eq "purged: no file of pib left" "$(pib_leftovers)" ""
expect_eq "purged: dpkg knows no pib package" \
	"$(dpkg-query -W -f '${Package} ${Status}\n' 'pib-*' 'ibverbs-provider-pib' 2>/dev/null |
	   grep -v 'not-installed$')" ""
check_fails "purged: modprobe finds no pib" "not found" modprobe -n pib
pib_done
