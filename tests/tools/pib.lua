-- SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
--
-- pib.lua: Wireshark/tshark dissector for pib's UDP port. Each datagram is
-- one complete InfiniBand packet (LRH ... ICRC, VCRC), which Wireshark's
-- own InfiniBand dissector decodes; pib's hellos are raw packets (LNH 0).
-- A capture on a receiving host whose NIC merged a run of datagrams (GRO)
-- has them as one: its packets follow each other, each as long as its
-- LRH says, and each is decoded.
--
--   tshark -X lua_script:pib.lua -i eth0 -f 'udp port 4792'
--   wireshark -X lua_script:pib.lua capture.pcapng
--
-- The port follows pib's udp_port module parameter; change it in
-- Preferences > Protocols > PIB, or with -o pib.udp_port:NNNN.

local pib = Proto("pib", "pib: InfiniBand over UDP")
local infiniband = Dissector.get("infiniband")
local udp_port = DissectorTable.get("udp.port")
local current_port = 4792

pib.prefs.udp_port = Pref.uint("UDP port", current_port,
	"UDP port that carries pib's IB packets (pib's udp_port parameter)")

-- packet_len(tvb, off): the length of the IB packet at off, from its
-- LRH's PktLen (4-byte words up to the VCRC) and the VCRC; the rest of the
-- datagram where that is no length of a packet that fits.
local function packet_len(tvb, off)
	local rest = tvb:len() - off
	if rest < 8 then
		return rest
	end
	local len = tvb(off + 4, 2):uint() % 2048 * 4 + 2
	if len < 8 or len > rest then
		return rest
	end
	return len
end

function pib.dissector(tvb, pinfo, tree)
	pinfo.cols.protocol = "pib"
	tree:add(pib, tvb(0, 0))
	local off = 0
	repeat
		local len = packet_len(tvb, off)
		infiniband:call(tvb(off, len):tvb(), pinfo, tree)
		off = off + len
	until off >= tvb:len()
	return off
end

function pib.prefs_changed()
	if pib.prefs.udp_port ~= current_port then
		udp_port:remove(current_port, pib)
		current_port = pib.prefs.udp_port
		udp_port:add(current_port, pib)
	end
end

udp_port:add(current_port, pib)
