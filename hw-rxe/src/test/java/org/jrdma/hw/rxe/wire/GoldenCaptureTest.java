package org.jrdma.hw.rxe.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jrdma.testsupport.Pcap;
import org.jrdma.testsupport.TestVectors;
import org.jrdma.testsupport.UdpFrame;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Golden tests against the Linux 6.1 rxe captures in {@code vectors/roce}: every RoCE packet of every
 * capture is decoded and compared with tshark's view of it (NAME.tsv fields, NAME.txt verbose dissection),
 * its ICRC is recomputed two ways, it is re-encoded from the decoded fields to the identical bytes, and its
 * UDP source port is derived from the QPNs.
 */
class GoldenCaptureTest {

    /** Not valid RoCE on purpose (a plain UDP datagram to 4791 from check-reachability.sh). */
    static final String BAD_ICRC_CAPTURE = "host_to_guest_udp";

    /**
     * Per capture: RoCE packets; how many have a .tsv row; .tsv rows where tshark printed no invariant CRC
     * (its RPCoRDMA heuristic claimed the 4-byte sends); RC packets of rdma_cm connections (UDP port from the
     * CM flow label). The packet total matches icrc-check.py's 680.
     */
    static final Map<String, int[]> EXPECTED = new TreeMap<>();

    static {
        EXPECTED.put("atomic_cas", new int[] {10, 10, 0, 0});
        EXPECTED.put("atomic_fadd", new int[] {10, 10, 0, 0});
        EXPECTED.put("guest_to_host_cm_req", new int[] {2, 0, 0, 0}); // no .tsv: checked against the .txt only
        EXPECTED.put("rc_pingpong", new int[] {12, 12, 0, 0});
        EXPECTED.put("rc_pingpong_8k", new int[] {36, 36, 0, 0});
        EXPECTED.put("read_bw_16k", new int[] {85, 85, 0, 0});
        EXPECTED.put("retrans_read_16k", new int[] {119, 119, 0, 0});
        EXPECTED.put("retrans_write_16k", new int[] {90, 90, 0, 0});
        EXPECTED.put("rping", new int[] {41, 41, 0, 36});
        EXPECTED.put("rstream_write_imm", new int[] {40, 40, 0, 35});
        EXPECTED.put("send_bw", new int[] {10, 10, 0, 0});
        EXPECTED.put("send_bw_cm", new int[] {66, 66, 6, 54});
        EXPECTED.put("send_lat", new int[] {20, 20, 0, 0});
        EXPECTED.put("uc_pingpong", new int[] {6, 6, 0, 0});
        EXPECTED.put("ud_pingpong", new int[] {6, 6, 0, 0});
        EXPECTED.put("verbs_bad_rkey_nak", new int[] {2, 2, 0, 0});
        EXPECTED.put("verbs_read_bad_len_nak", new int[] {2, 2, 0, 0});
        EXPECTED.put("verbs_rnr_nak", new int[] {4, 4, 0, 0});
        EXPECTED.put("verbs_send_imm", new int[] {2, 2, 0, 0});
        EXPECTED.put("verbs_write_imm", new int[] {2, 2, 0, 0});
        EXPECTED.put("write_bw_16k", new int[] {85, 85, 0, 0});
        EXPECTED.put("write_bw_64", new int[] {10, 10, 0, 0});
        EXPECTED.put("write_lat", new int[] {20, 20, 0, 0});
    }

    static final int EXPECTED_TOTAL = 680;

    static Stream<String> captures() {
        return EXPECTED.keySet().stream();
    }

    @Test
    void everyCaptureIsCoveredAndTheTotalIsRight() throws IOException {
        Set<String> present;
        try (Stream<Path> s = Files.list(TestVectors.path("roce"))) {
            present = s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".pcap"))
                    .map(n -> n.substring(0, n.length() - 5)).collect(Collectors.toCollection(TreeSet::new));
        }
        Set<String> expected = new TreeSet<>(EXPECTED.keySet());
        expected.add(BAD_ICRC_CAPTURE);
        assertEquals(expected, present, "captures in " + TestVectors.path("roce"));
        assertEquals(EXPECTED_TOTAL, EXPECTED.values().stream().mapToInt(v -> v[0]).sum());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("captures")
    void everyPacketMatchesLinux(String name) throws IOException {
        Path dir = TestVectors.path("roce");
        List<UdpFrame> frames = new ArrayList<>();
        for (Pcap.Frame f : Pcap.read(dir.resolve(name + ".pcap"))) {
            UdpFrame r = Captures.roce(f);
            if (r != null) {
                frames.add(r);
            }
        }
        Map<Integer, Map<String, String>> tsv = Captures.readTsv(dir.resolve(name + ".tsv"));
        Map<Integer, Map<String, String>> txt = Captures.readTxt(dir.resolve(name + ".txt"));

        // QPNs that packets were sent to, per destination IP: the candidates for a sender's local QPN;
        // and the flow label of every QP connected by rdma_cm (from the CM REQ, and the REP answering it).
        Map<String, Set<Integer>> qpnsAt = new HashMap<>();
        Map<Integer, Integer> cmFlowLabel = new HashMap<>();
        Map<Long, Integer> reqLabel = new HashMap<>();
        RxePacket pkt = new RxePacket();
        for (UdpFrame r : frames) {
            ByteBuf b = Unpooled.wrappedBuffer(r.data);
            assertEquals(RxeDecodeStatus.OK, pkt.decode(b, r.payloadOffset, r.length), name + " frame " + r.number);
            qpnsAt.computeIfAbsent(r.ipDst(), k -> new HashSet<>()).add(pkt.qpn());
            Map<String, String> t = txt.get(r.number);
            if (pkt.has(RxeMask.DETH) && pkt.qpn() == 1 && "0x07".equals(t.get("Management Class"))) {
                long attr = Captures.num(t.get("Attribute ID"));
                if (attr == 0x10) { // CM REQ: primary flow label = top 20 bits of REQ word 88
                    int fl = b.getInt(pkt.payloadOffset() + 24 + 88) >>> 12;
                    assertEquals(UdpSourcePort.rdmaCmFlowLabel((int) Captures.num(t.get("IP CM Source Port")),
                            (int) Captures.num(t.get("Destination Port"))), fl, name + " frame " + r.number);
                    cmFlowLabel.put((int) Captures.num(t.get("Local QPN")), fl);
                    reqLabel.put(Captures.num(t.get("Local Communication ID")), fl);
                } else if (attr == 0x13) { // CM REP
                    Integer fl = reqLabel.get(Captures.num(t.get("Remote Communication ID")));
                    assertNotNull(fl, name + " frame " + r.number + ": REP without REQ");
                    cmFlowLabel.put((int) Captures.num(t.get("Local QPN")), fl);
                }
            }
        }

        Icrc icrc = new Icrc();
        int checked = 0;
        int tsvRows = 0;
        int tsvNoCrc = 0;
        int viaCm = 0;
        for (UdpFrame r : frames) {
            String where = name + " frame " + r.number;
            ByteBuf b = Unpooled.wrappedBuffer(r.data);
            assertEquals(RxeDecodeStatus.OK, pkt.decode(b, r.payloadOffset, r.length), where);
            assertEquals(r.length, pkt.headerLength() + pkt.payloadLength() + pkt.pad() + RxeWire.ICRC_BYTES, where);
            assertEquals(0, b.readerIndex(), where);

            // 1. the ICRC, recomputed from the whole IP packet and from the header fields
            int carried = pkt.icrc();
            assertEquals(carried, icrc.ofIpPacket(b, r.ipOffset), where + ": ICRC over the IP packet");
            assertEquals(4, r.ipVersion, where);
            assertEquals(carried, icrc.ipv4(r.ipv4Src(), r.ipv4Dst(), r.ipv4Id(), r.ipv4FlagsFrag(), r.srcPort,
                    r.dstPort, b, r.payloadOffset, r.length), where + ": ICRC from header fields");
            assertEquals(carried, Icrc.stored(b, r.payloadOffset, r.length), where);

            // 2. tshark's verbose dissection (all captures, including the one without a .tsv)
            Map<String, String> t = txt.get(r.number);
            assertNotNull(t, where + " not in .txt");
            compareTxt(where, pkt, b, t);

            // 3. tshark's field export
            Map<String, String> row = tsv.get(r.number);
            if (row != null) {
                tsvRows++;
                if (!compareTsv(where, pkt, b, row)) {
                    tsvNoCrc++;
                }
            }

            // 4. re-encode the headers from the decoded fields: identical bytes, ICRC included
            byte[] original = new byte[r.length];
            b.getBytes(r.payloadOffset, original);
            assertArrayEquals(original, reencode(pkt, r, icrc), where + ": re-encoded packet");

            // 5. the UDP source port rule
            if (pkt.has(RxeMask.DETH)) {
                assertEquals(UdpSourcePort.ofQpn(pkt.dethSqp()), r.srcPort, where + ": UD/GSI port");
            } else if (cmFlowLabel.containsKey(pkt.qpn())) {
                assertEquals(UdpSourcePort.ofConnection(cmFlowLabel.get(pkt.qpn()), 0, 0), r.srcPort,
                        where + ": rdma_cm connection port");
                viaCm++;
            } else {
                Set<Integer> local = qpnsAt.getOrDefault(r.ipSrc(), Set.of());
                boolean matched = false;
                for (int l : local) {
                    matched |= UdpSourcePort.ofConnection(0, l, pkt.qpn()) == r.srcPort;
                }
                assertTrue(matched, where + ": port " + r.srcPort + " from no QPN pair (" + local + ", "
                        + pkt.qpn() + ")");
            }
            checked++;
        }
        int[] exp = EXPECTED.get(name);
        assertEquals(exp[0], checked, name + ": RoCE packets checked");
        assertEquals(exp[1], tsvRows, name + ": packets checked against the .tsv");
        assertEquals(exp[2], tsvNoCrc, name + ": .tsv rows without an invariant CRC");
        assertEquals(exp[3], viaCm, name + ": RC packets whose UDP port comes from an rdma_cm flow label");
        System.out.printf("golden %-24s %4d packets (%d vs .tsv, %d vs .txt, %d rdma_cm-port)%n", name, checked,
                tsvRows, checked, viaCm);
    }

    /** host_to_guest_udp is a plain datagram: not a valid rxe packet, and its "ICRC" does not check. */
    @Test
    void theNonRocePacketIsRejected() throws IOException {
        List<Pcap.Frame> frames = Pcap.read(TestVectors.path("roce/" + BAD_ICRC_CAPTURE + ".pcap"));
        assertEquals(1, frames.size());
        UdpFrame r = Captures.roce(frames.get(0));
        assertNotNull(r);
        ByteBuf b = Unpooled.wrappedBuffer(r.data);
        RxePacket pkt = new RxePacket();
        assertEquals(RxeDecodeStatus.BAD_OPCODE, pkt.decode(b, r.payloadOffset, r.length));
        assertEquals('h', pkt.opcodeValue());
        assertNotEquals(Icrc.stored(b, r.payloadOffset, r.length), new Icrc().ofIpPacket(b, r.ipOffset));
    }

    private static void compareTxt(String where, RxePacket pkt, ByteBuf b, Map<String, String> t) {
        assertEquals(pkt.opcodeValue(), Captures.lastParenNumber(t.get("Opcode")), where + " opcode");
        assertEquals(pkt.se(), Boolean.parseBoolean(t.get("Solicited Event").toLowerCase()), where + " SE");
        assertEquals(pkt.mig(), Boolean.parseBoolean(t.get("MigReq").toLowerCase()), where + " MigReq");
        assertEquals(pkt.pad(), Captures.num(t.get("Pad Count")), where + " pad");
        assertEquals(pkt.tver(), Captures.num(t.get("Header Version")), where + " tver");
        assertEquals(pkt.pkey(), Captures.num(t.get("Partition Key")), where + " pkey");
        assertEquals(RxeWire.DEFAULT_PKEY, pkt.pkey(), where + " pkey");
        assertEquals(b.getUnsignedByte(pkt.bthOffset() + 4), Long.parseLong(t.get("Reserved"), 16), where + " resv8a");
        assertEquals(pkt.qpn(), Captures.num(t.get("Destination Queue Pair")), where + " destqp");
        assertEquals(pkt.ackReq(), Boolean.parseBoolean(t.get("Acknowledge Request").toLowerCase()), where + " A");
        assertEquals(Bth.resv7(b, pkt.bthOffset()), Captures.num(t.get("Reserved (7 bits)")), where + " resv7");
        assertEquals(pkt.psn(), Captures.num(t.get("Packet Sequence Number")), where + " psn");
        if (t.containsKey("Invariant CRC")) {
            assertEquals(b.getInt(pkt.icrcOffset()), (int) Captures.num(t.get("Invariant CRC")), where + " ICRC");
        }
        if (pkt.has(RxeMask.RETH)) {
            assertEquals(pkt.rethVa(), Captures.num(t.get("Virtual Address")), where + " reth va");
            assertEquals(pkt.rethRkey(), (int) Captures.num(t.get("Remote Key")), where + " reth rkey");
            assertEquals(Integer.toUnsignedLong(pkt.rethLen()), Captures.num(t.get("DMA Length").split(" ")[0]),
                    where + " reth len");
        }
        if (pkt.has(RxeMask.ATMETH)) {
            assertEquals(pkt.atmethVa(), Captures.num(t.get("Virtual Address")), where + " atmeth va");
            assertEquals(pkt.atmethRkey(), (int) Captures.num(t.get("Remote Key")), where + " atmeth rkey");
            assertEquals(pkt.atmethSwapAdd(), Captures.num(t.get("Swap (Or Add) Data")), where + " swap/add");
            assertEquals(pkt.atmethComp(), Captures.num(t.get("Compare Data")), where + " compare");
        } else {
            assertFalse(t.containsKey("Swap (Or Add) Data"), where);
        }
        if (pkt.has(RxeMask.ATMACK)) {
            assertEquals(pkt.atmackOrig(), Captures.num(t.get("Original Remote Data")), where + " orig");
        }
        if (pkt.has(RxeMask.AETH)) {
            int syn = pkt.aethSyn();
            assertEquals(syn, Captures.num(t.get("Syndrome").split(",")[0]), where + " syndrome");
            assertEquals(pkt.aethMsn(), Captures.num(t.get("Message Sequence Number")), where + " msn");
            long wsType = Captures.lastParenNumber(t.get("OpCode")); // Wireshark: 0 ACK, 1 RNR NAK, 3 NAK
            switch (Aeth.type(syn)) {
                case ACK:
                    assertEquals(0, wsType, where);
                    assertEquals(Aeth.credits(syn), Captures.num(t.get("Credit Count")), where + " credits");
                    break;
                case RNR_NAK:
                    assertEquals(1, wsType, where);
                    assertEquals(Aeth.rnrTimer(syn), Captures.lastParenNumber(t.get("Timer")), where + " timer");
                    break;
                case NAK:
                    assertEquals(3, wsType, where);
                    assertEquals(Aeth.nakCode(syn).code(), Captures.lastParenNumber(t.get("Error Code")), where);
                    break;
                default:
                    fail(where + ": reserved syndrome " + syn);
            }
        } else {
            assertFalse(t.containsKey("Syndrome"), where);
        }
        if (pkt.has(RxeMask.DETH)) {
            assertEquals(Integer.toUnsignedLong(pkt.dethQkey()), Captures.num(t.get("Queue Key")), where + " qkey");
            assertEquals(pkt.dethSqp(), Captures.num(t.get("Source Queue Pair")), where + " srcqp");
        }
        if (pkt.has(RxeMask.IMMDT)) {
            assertEquals(pkt.immdt(), (int) Long.parseLong(t.get("Immediate Data"), 16), where + " immdt");
        }
    }

    /** Compares with a .tsv row; returns false if tshark printed no invariant CRC for it. */
    private static boolean compareTsv(String where, RxePacket pkt, ByteBuf b, Map<String, String> row) {
        assertEquals(pkt.opcodeValue(), Integer.parseInt(row.get("infiniband.bth.opcode")), where + " opcode");
        assertEquals(pkt.se() ? 1 : 0, Integer.parseInt(row.get("infiniband.bth.se")), where + " se");
        assertEquals(pkt.mig() ? 1 : 0, Integer.parseInt(row.get("infiniband.bth.m")), where + " m");
        assertEquals(pkt.pad(), Integer.parseInt(row.get("infiniband.bth.padcnt")), where + " padcnt");
        assertEquals(pkt.qpn(), Captures.num(row.get("infiniband.bth.destqp")), where + " destqp");
        assertEquals(pkt.ackReq() ? 1 : 0, Integer.parseInt(row.get("infiniband.bth.a")), where + " a");
        assertEquals(pkt.psn(), Integer.parseInt(row.get("infiniband.bth.psn")), where + " psn");
        String srcqp = row.get("infiniband.deth.srcqp");
        assertEquals(pkt.has(RxeMask.DETH), !srcqp.isEmpty(), where + " deth presence");
        if (!srcqp.isEmpty()) {
            assertEquals(pkt.dethSqp(), Captures.num(srcqp), where + " deth.srcqp");
        }
        // tshark files the AtomicETH's VA and R_Key under the RETH field names too
        String va = row.get("infiniband.reth.va");
        assertEquals(pkt.has(RxeMask.RETH) || pkt.has(RxeMask.ATMETH), !va.isEmpty(), where + " reth presence");
        if (pkt.has(RxeMask.ATMETH)) {
            assertEquals(pkt.atmethVa(), Captures.num(va), where + " atmeth va");
            assertEquals(pkt.atmethRkey(), (int) Captures.num(row.get("infiniband.reth.r_key")), where + " atmeth rkey");
            assertEquals("", row.get("infiniband.reth.dmalen"), where);
        } else if (!va.isEmpty()) {
            assertEquals(pkt.rethVa(), Captures.num(va), where + " reth.va");
            assertEquals(pkt.rethRkey(), (int) Captures.num(row.get("infiniband.reth.r_key")), where + " reth.r_key");
            assertEquals(Integer.toUnsignedLong(pkt.rethLen()), Captures.num(row.get("infiniband.reth.dmalen")),
                    where + " reth.dmalen");
        }
        String syn = row.get("infiniband.aeth.syndrome");
        assertEquals(pkt.has(RxeMask.AETH), !syn.isEmpty(), where + " aeth presence");
        if (!syn.isEmpty()) {
            assertEquals(pkt.aethSyn(), Integer.parseInt(syn), where + " aeth.syndrome");
            assertEquals(pkt.aethMsn(), Integer.parseInt(row.get("infiniband.aeth.msn")), where + " aeth.msn");
        }
        String imm = row.get("infiniband.immdt");
        assertEquals(pkt.has(RxeMask.IMMDT), !imm.isEmpty(), where + " immdt presence");
        if (!imm.isEmpty()) {
            assertEquals(pkt.immdt(), (int) Long.parseLong(imm, 16), where + " immdt");
        }
        String crc = row.get("infiniband.invariant.crc");
        if (crc.isEmpty()) {
            return false;
        }
        // tshark shows the 4 wire bytes read big-endian; rxe's value is those bytes read little-endian
        assertEquals(Integer.reverseBytes(pkt.icrc()), (int) Captures.num(crc), where + " invariant.crc");
        assertEquals(b.getInt(pkt.icrcOffset()), (int) Captures.num(crc), where + " invariant.crc");
        return true;
    }

    /** Builds the UDP payload again from the decoded fields, the payload and pad bytes, and a fresh ICRC. */
    private static byte[] reencode(RxePacket pkt, UdpFrame r, Icrc icrc) {
        ByteBuf src = pkt.buf();
        int bth = pkt.bthOffset();
        RxeOpcode op = pkt.opcode();
        int len = RxeWire.udpPayloadLength(op, pkt.payloadLength());
        assertEquals(pkt.length(), len, "length rule " + op);
        assertEquals(RxeWire.padFor(pkt.payloadLength()), pkt.pad(), "pad rule " + op);
        ByteBuf out = Unpooled.buffer(len);
        out.writeZero(len);
        Bth.encode(out, 0, op.value(), pkt.se(), pkt.mig(), pkt.pad(), pkt.pkey(), pkt.qpn(), pkt.ackReq(), pkt.psn());
        Bth.setTver(out, 0, pkt.tver());
        Bth.setFecn(out, 0, pkt.fecn());
        Bth.setBecn(out, 0, pkt.becn());
        Bth.setResv6a(out, 0, Bth.resv6a(src, bth));
        Bth.setResv7(out, 0, Bth.resv7(src, bth));
        if (op.is(RxeMask.DETH)) {
            Deth.encode(out, op.dethOffset(), pkt.dethQkey(), pkt.dethSqp());
        }
        if (op.is(RxeMask.RETH)) {
            Reth.encode(out, op.rethOffset(), pkt.rethVa(), pkt.rethRkey(), pkt.rethLen());
        }
        if (op.is(RxeMask.ATMETH)) {
            AtomicEth.encode(out, op.atmethOffset(), pkt.atmethVa(), pkt.atmethRkey(), pkt.atmethSwapAdd(),
                    pkt.atmethComp());
        }
        if (op.is(RxeMask.AETH)) {
            Aeth.encode(out, op.aethOffset(), pkt.aethSyn(), pkt.aethMsn());
        }
        if (op.is(RxeMask.ATMACK)) {
            AtomicAckEth.encode(out, op.atmackOffset(), pkt.atmackOrig());
        }
        if (op.is(RxeMask.IETH)) {
            Ieth.encode(out, op.iethOffset(), pkt.iethRkey());
        }
        if (op.is(RxeMask.IMMDT)) {
            ImmDt.encode(out, op.immdtOffset(), pkt.immdt());
        }
        out.setBytes(op.payloadOffset(), src, pkt.payloadOffset(), pkt.payloadLength() + pkt.pad());
        int crc = icrc.ipv4(r.ipv4Src(), r.ipv4Dst(), r.ipv4Id(), r.ipv4FlagsFrag(), r.srcPort, r.dstPort, out, 0, len);
        Icrc.store(out, 0, len, crc);
        byte[] bytes = new byte[len];
        out.getBytes(0, bytes);
        return bytes;
    }
}
