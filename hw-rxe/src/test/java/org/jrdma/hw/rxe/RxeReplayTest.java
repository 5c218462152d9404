package org.jrdma.hw.rxe;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;

import org.jrdma.hw.rxe.RxeWireBed.Conn;
import org.jrdma.hw.rxe.RxeWireBed.Sent;
import org.jrdma.hw.rxe.RxeWireBed.Side;
import org.jrdma.hw.rxe.wire.Bth;
import org.jrdma.hw.rxe.wire.Captures;
import org.jrdma.hw.rxe.wire.Reth;
import org.jrdma.hw.rxe.wire.RxeDecodeStatus;
import org.jrdma.hw.rxe.wire.RxeMask;
import org.jrdma.hw.rxe.wire.RxeOpcode;
import org.jrdma.hw.rxe.wire.RxePacket;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.SendFlags;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.Sge;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.core.WorkCompletion;
import org.jrdma.ib.core.WrOpcode;
import org.jrdma.testsupport.Pcap;
import org.jrdma.testsupport.TestVectors;
import org.jrdma.testsupport.UdpFrame;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * The Linux rxe captures of vectors/roce replayed as protocol scenarios. Responder direction: a
 * jrdma QP takes the place of rxe_b (192.0.2.11), gets the requests rxe_b got (those dropped before rxe_b
 * left out), and must send what rxe_b sent, byte for byte but the ICRC (Linux's covers its nonzero IPv4 ID,
 * see NOTES.md). Requester direction: a jrdma QP takes the place of rxe_a (192.0.2.10), the WRs rxe_a's
 * tool posted are posted when the capture shows their first packet, rxe_b's answers are fed back (those
 * dropped before rxe_a left out), and jrdma must send rxe_a's packets, again byte for byte, and complete
 * as the tool reported.
 *
 * <p>The captured packets are rewritten for the jrdma QP: the BTH destination QP always; in requests the
 * RETH/AtomicETH address (rebased from the captured MR to the jrdma MR) and rkey (the captured MR's rkey
 * becomes the jrdma MR's; any other key stays as far off it as it was). The ICRC is recomputed.
 */
class RxeReplayTest {
    static final String REQUESTER = "192.0.2.10";
    static final String RESPONDER = "192.0.2.11";
    /** Every capture ran at path MTU 1024 (README). */
    static final int MTU = 1024;

    RxeWireBed bed;

    @AfterEach
    void close() throws Exception {
        if (bed != null) {
            bed.close();
        }
    }

    @AfterAll
    static void noLeaks() throws Exception {
        assertEquals(0, LeakCheck.collect(), "leaked buffers (Netty's detector, or packet slots not returned)");
    }

    /** One RoCE packet of a capture. */
    record Cap(int frame, boolean fromRequester, byte[] bytes, int srcPort) {
        RxePacket pkt() {
            RxePacket p = new RxePacket();
            assertEquals(RxeDecodeStatus.OK, p.decode(Unpooled.wrappedBuffer(bytes)));
            return p;
        }

        byte[] payload() {
            RxePacket p = pkt();
            byte[] d = new byte[p.payloadLength()];
            p.buf().getBytes(p.payloadOffset(), d);
            return d;
        }
    }

    static List<Cap> load(String name) throws Exception {
        List<Cap> out = new ArrayList<>();
        for (Pcap.Frame f : Pcap.read(TestVectors.path("roce/" + name + ".pcap"))) {
            UdpFrame r = Captures.roce(f);
            if (r == null) {
                continue;
            }
            byte[] b = java.util.Arrays.copyOfRange(r.data, r.payloadOffset, r.payloadOffset + r.length);
            out.add(new Cap(r.number, r.ipSrc().equals(REQUESTER), b, r.srcPort));
        }
        return out;
    }

    /** Byte-exact but the ICRC, with a decoded view in the message. */
    static void assertSamePacket(String what, byte[] linux, byte[] jrdma) {
        boolean same = linux.length == jrdma.length;
        for (int i = 0; same && i < linux.length - 4; i++) {
            same = linux[i] == jrdma[i];
        }
        if (!same) {
            throw new AssertionError(what + ": Linux sent " + decode(linux) + ", jrdma sent " + decode(jrdma)
                    + "\n linux " + hex(linux) + "\n jrdma " + hex(jrdma));
        }
    }

    static String decode(byte[] b) {
        RxePacket p = new RxePacket();
        p.decode(Unpooled.wrappedBuffer(b));
        String s = p.toString();
        if (p.status() == RxeDecodeStatus.OK && p.has(RxeMask.AETH)) {
            s += " syn=0x" + Integer.toHexString(p.aethSyn()) + " msn=" + p.aethMsn();
        }
        return s;
    }

    static String hex(byte[] b) {
        return HexFormat.of().formatHex(b, 0, Math.min(b.length, 48)) + (b.length > 48 ? "..." : "");
    }

    // ================================================================ responder direction

    /** What the captured responder's MR looked like. */
    record CapMr(long addr, int len, int rkey) {
    }

    /**
     * Replays the requests of {@code name} into a jrdma responder that has an MR like {@code mr}, leaving out
     * the frames in {@code dropped}; asserts the answers equal the captured ones. The MR is filled from the
     * captured read responses and atomic ACKs first, so that jrdma has the data rxe_b had.
     */
    Side replayResponder(String name, CapMr mr, Set<Integer> dropped, Conn tweak) throws Exception {
        List<Cap> caps = load(name);
        bed = new RxeWireBed(RESPONDER, REQUESTER);
        Side s = bed.side(QpType.RC, mr.len());
        Cap firstReq = caps.stream().filter(Cap::fromRequester).findFirst().orElseThrow();
        Cap firstResp = caps.stream().filter(c -> !c.fromRequester()).findFirst().orElseThrow();
        Conn c = tweak != null ? tweak : new Conn(0, 0, 0);
        c.destQpn = firstResp.pkt().qpn();
        c.rqPsn = firstReq.pkt().psn();
        c.sqPsn = 0;
        bed.connect(s, c);
        prefill(caps, mr, s.buf);
        List<Cap> linuxAnswers = new ArrayList<>();
        for (Cap cap : caps) {
            if (!cap.fromRequester()) {
                linuxAnswers.add(cap);
            } else if (!dropped.contains(cap.frame())) {
                bed.inject(rewriteRequest(cap.bytes(), s, mr), cap.srcPort());
            }
        }
        for (Cap answer : linuxAnswers) {
            Sent got = bed.next(5000);
            assertSamePacket(name + " frame " + answer.frame(), answer.bytes(), got.bytes());
            assertEquals(bed.peer, got.dst());
        }
        bed.quiet(50);
        return s;
    }

    /** Puts into {@code buf} what the captured read responses and atomic ACKs say rxe_b's MR held. */
    static void prefill(List<Cap> caps, CapMr mr, ByteBuffer buf) {
        long readVa = 0;
        int readPsn = 0;
        Set<Long> atomicSeen = new java.util.HashSet<>();
        java.util.Map<Integer, Long> atomicVa = new java.util.HashMap<>();
        for (Cap c : caps) {
            RxePacket p = c.pkt();
            if (c.fromRequester() && p.has(RxeMask.READ)) {
                readVa = p.rethVa();
                readPsn = p.psn();
            } else if (c.fromRequester() && p.has(RxeMask.ATOMIC)) {
                atomicVa.put(p.psn(), p.atmethVa());
            } else if (!c.fromRequester() && p.opcode().name().startsWith("RC_RDMA_READ_RESPONSE")) {
                long at = readVa - mr.addr() + (long) ((p.psn() - readPsn) & 0xffffff) * MTU;
                byte[] d = c.payload();
                buf.put((int) at, d);
            } else if (!c.fromRequester() && p.opcode() == RxeOpcode.RC_ATOMIC_ACKNOWLEDGE) {
                long va = atomicVa.get(p.psn());
                if (atomicSeen.add(va)) {
                    buf.putLong((int) (va - mr.addr()), p.atmackOrig());
                }
            }
        }
    }

    static byte[] rewriteRequest(byte[] cap, Side s, CapMr mr) {
        byte[] b = cap.clone();
        ByteBuf bb = Unpooled.wrappedBuffer(b);
        RxePacket p = new RxePacket();
        assertEquals(RxeDecodeStatus.OK, p.decode(bb));
        Bth.setQpn(bb, 0, s.qpn());
        if (p.has(RxeMask.RETH)) {
            Reth.setVa(bb, p.rethOffset(), p.rethVa() - mr.addr() + s.mr.iova());
            Reth.setRkey(bb, p.rethOffset(), rkey(p.rethRkey(), s, mr));
        }
        if (p.has(RxeMask.ATMETH)) {
            int off = p.atmethOffset();
            bb.setLong(off, p.atmethVa() - mr.addr() + s.mr.iova());
            bb.setInt(off + 8, rkey(p.atmethRkey(), s, mr));
        }
        return b;
    }

    static int rkey(int captured, Side s, CapMr mr) {
        return s.mr.rkey() ^ (captured ^ mr.rkey());
    }

    /** The data a WRITE message of the capture carries, by PSN from its FIRST/ONLY at {@code psn}. */
    static byte[] messageData(List<Cap> caps, int psn, int len) {
        byte[] d = new byte[len];
        Set<Integer> seen = new java.util.HashSet<>();
        for (Cap c : caps) {
            if (!c.fromRequester()) {
                continue;
            }
            RxePacket p = c.pkt();
            int i = (p.psn() - psn) & 0xffffff;
            if (p.has(RxeMask.PAYLOAD) && i < (len + MTU - 1) / MTU && seen.add(i)) {
                byte[] pl = c.payload();
                System.arraycopy(pl, 0, d, i * MTU, pl.length);
            }
        }
        return d;
    }

    static void assertMemory(byte[] want, ByteBuffer buf, int off) {
        for (int i = 0; i < want.length; i++) {
            if (want[i] != buf.get(off + i)) {
                throw new AssertionError("memory differs at byte " + i);
            }
        }
    }

    @Test
    void responderWriteBw() throws Exception {
        Side s = replayResponder("write_bw_16k", rethMr("write_bw_16k"), Set.of(), null);
        List<Cap> caps = load("write_bw_16k");
        Cap last = caps.stream().filter(c -> c.fromRequester() && c.pkt().opcode() == RxeOpcode.RC_RDMA_WRITE_FIRST)
                .reduce((a, b) -> b).orElseThrow();
        assertMemory(messageData(caps, last.pkt().psn(), 16384), s.buf, 0);
        assertEquals(0, bed.counter(RxeCounter.OUT_OF_SEQ_REQUEST));
        assertEquals(0, bed.counter(RxeCounter.DUPLICATE_REQUEST));
    }

    @Test
    void responderReadBw() throws Exception {
        replayResponder("read_bw_16k", rethMr("read_bw_16k"), Set.of(), null);
    }

    @Test
    void responderAtomicFetchAdd() throws Exception {
        replayResponder("atomic_fadd", atomicMr("atomic_fadd"), Set.of(), null);
    }

    @Test
    void responderAtomicCompareSwap() throws Exception {
        replayResponder("atomic_cas", atomicMr("atomic_cas"), Set.of(), null);
    }

    /** perftest's buffer: the address and rkey of the first captured request (its MR's start). */
    static CapMr rethMr(String name) throws Exception {
        RxePacket p = load(name).stream().filter(Cap::fromRequester).findFirst().orElseThrow().pkt();
        return new CapMr(p.rethVa(), 65536, p.rethRkey());
    }

    /** perftest's atomic buffer: the lowest address and the rkey of the captured atomics. */
    static CapMr atomicMr(String name) throws Exception {
        RxePacket p = load(name).stream().filter(Cap::fromRequester).findFirst().orElseThrow().pkt();
        return new CapMr(p.atmethVa(), 65536, p.atmethRkey());
    }

    /**
     * retrans_write_16k: every 45th RoCE packet towards rxe_b was dropped at veth1 ingress; the only one is
     * frame 66 (PSN 3696812, the 45th request). rxe_b NAKs with PSN sequence error at the missing PSN when the
     * next one arrives, ignores the rest of the burst (one NAK per gap), and takes the go-back-N retransmission.
     */
    @Test
    void responderRetransWrite() throws Exception {
        CapMr mr = new CapMr(0x0000555d1eca6000L, 65536, 0x0025a1);
        Side s = replayResponder("retrans_write_16k", mr, Set.of(66), null);
        assertEquals(1, bed.counter(RxeCounter.OUT_OF_SEQ_REQUEST), "one NAK for the gap");
        assertEquals(0, bed.counter(RxeCounter.DUPLICATE_REQUEST));
        List<Cap> caps = load("retrans_write_16k");
        RxePacket nak = caps.stream().filter(c -> c.frame() == 70).findFirst().orElseThrow().pkt();
        RxePacket lost = caps.stream().filter(c -> c.frame() == 66).findFirst().orElseThrow().pkt();
        assertEquals(0x60, nak.aethSyn());
        assertEquals(lost.psn(), nak.psn(), "the capture's NAK names the dropped PSN");
        assertMemory(messageData(caps, 3696832, 16384), s.buf, 0);
    }

    /**
     * retrans_read_16k, rxe_b's side: no request was lost, but rxe_a re-issued two READs for the rest of
     * messages whose responses it lost (frames 88 and 128, PSNs inside an executed READ) and one whole READ
     * (frame 93, the first PSN of an executed READ): duplicates, answered from the responder's read
     * resources, a replay from a middle PSN starting with READ RESPONSE MIDDLE (not FIRST).
     */
    @Test
    void responderRetransRead() throws Exception {
        replayResponder("retrans_read_16k", new CapMr(0x0000560994a26000L, 65536, 0x0026be), Set.of(), null);
        assertEquals(3, bed.counter(RxeCounter.DUPLICATE_REQUEST));
        assertEquals(0, bed.counter(RxeCounter.OUT_OF_SEQ_REQUEST));
    }

    /** A SEND with no receive posted: RNR NAK (timer 14) at the SEND's PSN, twice (rnr_retry=1). */
    @Test
    void responderRnrNak() throws Exception {
        Conn c = new Conn(0, 0, 0);
        c.minRnrTimer = 14; // verbs-cases.py's min_rnr_timer, seen in the syndrome 0x2e
        Side s = replayResponder("verbs_rnr_nak", new CapMr(0x118c5000L, 4096, 0x0000228f), Set.of(), c);
        assertEquals(2, bed.counter(RxeCounter.SEND_RNR_ERR));
        assertEquals(QpState.RTS, s.qp.query().state(), "an RNR NAK is not an error");
    }

    /** A WRITE with a wrong rkey: NAK remote access error (class C): the responder QP goes to ERR. */
    @Test
    void responderBadRkeyNak() throws Exception {
        Side s = replayResponder("verbs_bad_rkey_nak", new CapMr(0x31ff7000L, 4096, 0x0000239a), Set.of(), null);
        assertEquals(QpState.ERR, s.qp.query().state());
    }

    /** A 64-byte READ starting 32 bytes before the end of the 4 KiB MR: NAK remote access error. */
    @Test
    void responderReadPastMrEndNak() throws Exception {
        Side s = replayResponder("verbs_read_bad_len_nak", new CapMr(0x255b5000L, 4096, 0x00002419), Set.of(),
                null);
        assertEquals(QpState.ERR, s.qp.query().state());
    }

    // ================================================================ requester direction

    /** A message the replay posted: its PSN range. */
    record Msg(int firstPsn, int npsn) {
        boolean covers(int psn) {
            return ((psn - firstPsn) & 0xffffff) < npsn;
        }
    }

    /**
     * Plays rxe_a: walks the capture; a requester packet outside every message posted so far posts its WR
     * (from its headers and the captured data) first; every requester packet must then be the next one
     * jrdma sends; every responder packet not in {@code dropped} is fed back. Returns the side for checks.
     */
    Side replayRequester(String name, Set<Integer> dropped, Conn tweak) throws Exception {
        return replayRequester(name, dropped, tweak, java.util.Map.of());
    }

    /**
     * The same, where jrdma deliberately differs from Linux: {@code ours} maps a frame number to what jrdma sends
     * instead of the captured requester packet (made from the captured bytes).
     */
    Side replayRequester(String name, Set<Integer> dropped, Conn tweak,
            java.util.Map<Integer, java.util.function.UnaryOperator<byte[]>> ours) throws Exception {
        List<Cap> caps = load(name);
        bed = new RxeWireBed(REQUESTER, RESPONDER);
        Side s = bed.side(QpType.RC, 1 << 20);
        Cap firstReq = caps.stream().filter(Cap::fromRequester).findFirst().orElseThrow();
        Conn c = tweak != null ? tweak : new Conn(0, 0, 0);
        c.destQpn = firstReq.pkt().qpn();
        c.sqPsn = firstReq.pkt().psn();
        c.rqPsn = 0;
        bed.connect(s, c);
        List<Msg> posted = new ArrayList<>();
        int slot = 0;
        for (Cap cap : caps) {
            if (cap.fromRequester()) {
                RxePacket p = cap.pkt();
                if (posted.stream().noneMatch(m -> m.covers(p.psn()))) {
                    posted.add(post(s, caps, cap, p, slot));
                    slot += 32768;
                }
                Sent got = bed.next(5000);
                byte[] want = ours.getOrDefault(cap.frame(), b -> b).apply(cap.bytes().clone());
                assertSamePacket(name + " frame " + cap.frame(), want, got.bytes());
                assertEquals(bed.peer, got.dst());
            } else if (!dropped.contains(cap.frame())) {
                byte[] b = cap.bytes().clone();
                Bth.setQpn(Unpooled.wrappedBuffer(b), 0, s.qpn());
                bed.inject(b, cap.srcPort());
            }
        }
        return s;
    }

    /** Posts the WR whose first packet is {@code p}, its local data at {@code slot} of the buffer. */
    static Msg post(Side s, List<Cap> caps, Cap cap, RxePacket p, int slot) {
        long local = s.mr.iova() + slot;
        SendWr wr = new SendWr().wrId(p.psn()).sendFlags(SendFlags.SIGNALED);
        switch (p.opcode()) {
            case RC_RDMA_WRITE_FIRST, RC_RDMA_WRITE_ONLY -> {
                int len = p.rethLen();
                s.buf.put(slot, messageData(caps, p.psn(), len));
                wr.opcode(WrOpcode.RDMA_WRITE).sgList(new Sge(local, len, s.mr.lkey())).remote(p.rethVa(), p.rethRkey());
                s.qp.postSend(wr);
                return new Msg(p.psn(), Math.max(1, (len + MTU - 1) / MTU));
            }
            case RC_RDMA_READ_REQUEST -> {
                int len = p.rethLen();
                wr.opcode(WrOpcode.RDMA_READ).sgList(new Sge(local, len, s.mr.lkey())).remote(p.rethVa(), p.rethRkey());
                s.qp.postSend(wr);
                return new Msg(p.psn(), Math.max(1, (len + MTU - 1) / MTU));
            }
            case RC_SEND_ONLY -> {
                byte[] d = cap.payload();
                s.buf.put(slot, d);
                wr.opcode(WrOpcode.SEND).sgList(new Sge(local, d.length, s.mr.lkey()));
                s.qp.postSend(wr);
                return new Msg(p.psn(), 1);
            }
            case RC_FETCH_ADD, RC_COMPARE_SWAP -> {
                boolean add = p.opcode() == RxeOpcode.RC_FETCH_ADD;
                wr.opcode(add ? WrOpcode.ATOMIC_FETCH_AND_ADD : WrOpcode.ATOMIC_CMP_AND_SWP)
                        .sgList(new Sge(local, 8, s.mr.lkey())).remote(p.atmethVa(), p.atmethRkey());
                if (add) {
                    wr.compareAdd(p.atmethSwapAdd());
                } else {
                    wr.swap(p.atmethSwapAdd()).compareAdd(p.atmethComp());
                }
                s.qp.postSend(wr);
                return new Msg(p.psn(), 1);
            }
            default -> throw new AssertionError("no WR for " + p);
        }
    }

    static List<WorkCompletion> drain(Side s, int n) {
        List<WorkCompletion> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(s.next(5000));
        }
        assertEquals(null, s.poll(20), "no more completions");
        return out;
    }

    @Test
    void requesterWriteBw() throws Exception {
        Conn c = new Conn(0, 0, 0);
        c.timeout = 20; // 4 s: nothing here needs the retransmit timer; a loaded box must not fire it
        Side s = replayRequester("write_bw_16k", Set.of(), c);
        drain(s, 5).forEach(w -> assertEquals(WcStatus.SUCCESS, w.status()));
    }

    @Test
    void requesterReadBw() throws Exception {
        Conn c = new Conn(0, 0, 0);
        c.timeout = 20;
        Side s = replayRequester("read_bw_16k", Set.of(), c);
        drain(s, 5).forEach(w -> assertEquals(WcStatus.SUCCESS, w.status()));
        List<Cap> caps = load("read_bw_16k");
        for (int k = 0; k < 5; k++) {
            readBack(caps, s, k, new byte[16384]);
        }
    }

    /**
     * The data of the {@code k}-th READ (re-reads, whose PSNs lie inside an earlier READ, are not new
     * READs), from all its captured responses, compared with where the replay posted it.
     */
    static void readBack(List<Cap> caps, Side s, int k, byte[] scratch) {
        List<Msg> reads = new ArrayList<>();
        for (Cap cap : caps) {
            RxePacket p = cap.pkt();
            if (cap.fromRequester() && p.opcode() == RxeOpcode.RC_RDMA_READ_REQUEST
                    && reads.stream().noneMatch(m -> m.covers(p.psn()))) {
                reads.add(new Msg(p.psn(), (p.rethLen() + MTU - 1) / MTU));
            } else if (!cap.fromRequester() && p.has(RxeMask.PAYLOAD) && reads.size() > k
                    && reads.get(k).covers(p.psn())) {
                byte[] d = cap.payload();
                System.arraycopy(d, 0, scratch, ((p.psn() - reads.get(k).firstPsn()) & 0xffffff) * MTU, d.length);
            }
        }
        assertMemory(scratch, s.buf, k * 32768);
    }

    @Test
    void requesterAtomics() throws Exception {
        for (String name : List.of("atomic_fadd", "atomic_cas")) {
            Conn c = new Conn(0, 0, 0);
            c.timeout = 20;
            Side s = replayRequester(name, Set.of(), c);
            List<WorkCompletion> w = drain(s, 5);
            List<Cap> acks = load(name).stream().filter(x -> !x.fromRequester()).toList();
            for (int i = 0; i < 5; i++) {
                assertEquals(WcStatus.SUCCESS, w.get(i).status());
                assertEquals(acks.get(i).pkt().atmackOrig(), s.buf.getLong(i * 32768), "the original value lands");
            }
            bed.close();
            bed = null;
        }
    }

    /**
     * retrans_write_16k, rxe_a's side: the NAK (frame 70, PSN sequence error at 3696812) completes nothing
     * (the third WRITE ends at 3696815) and makes the requester go back to 3696812, resending it as a WRITE
     * MIDDLE, then MIDDLE, MIDDLE, LAST with AckReq (frames 71-74).
     */
    @Test
    void requesterRetransWrite() throws Exception {
        Conn c = new Conn(0, 0, 0);
        c.timeout = 20;
        Side s = replayRequester("retrans_write_16k", Set.of(), c);
        drain(s, 5).forEach(w -> assertEquals(WcStatus.SUCCESS, w.status()));
        assertEquals(1, bed.counter(RxeCounter.RCVD_SEQ_ERR));
        assertEquals(1, bed.counter(RxeCounter.COMPLETER_RETRY_ERR));
    }

    /**
     * retrans_read_16k, rxe_a's side: every 45th RoCE packet towards rxe_a was dropped at veth0 ingress:
     * frames 67 (READ RESPONSE MIDDLE 3867436 of the third READ) and 116 (MIDDLE 3867461 of the fifth).
     * The later responses of the same READ are ignored; the first response of the fourth READ (frame 72) is
     * an implicit NAK: rxe_a re-issues the third READ for the rest (frame 88: PSN 3867436, va + 12 KiB,
     * 4 KiB) and the fourth whole (frame 93). rxe_b answers the partial re-read with MIDDLE..LAST, which
     * must continue the READ in progress. For the fifth READ nothing follows the loss, so the retransmit
     * timer re-issues it (frame 128: PSN 3867461, va + 5 KiB, 11 KiB). jrdma differs there on purpose: after a
     * timeout it asks for one packet first (a probe read: 1 KiB, see RxeRequester.resendReadHead); the rest of
     * the capture (Linux's 11 KiB answer, MIDDLE..LAST) then completes the READ as it comes.
     */
    @Test
    void requesterRetransRead() throws Exception {
        Conn c = new Conn(0, 0, 0);
        c.timeout = 17; // ~0.5 s (Linux: 14, 67 ms): the last retry needs the timer; a slow replay must not
        java.util.function.UnaryOperator<byte[]> probeRead = b -> {
            Unpooled.wrappedBuffer(b).setInt(RxeOpcode.RC_RDMA_READ_REQUEST.rethOffset() + 12, 1024); // DMA length
            return b;
        };
        Side s = replayRequester("retrans_read_16k", Set.of(67, 116), c, java.util.Map.of(128, probeRead));
        List<WorkCompletion> w = drain(s, 5);
        for (int i = 0; i < 5; i++) {
            assertEquals(WcStatus.SUCCESS, w.get(i).status(), "READ " + i);
        }
        List<Cap> caps = load("retrans_read_16k");
        for (int k = 0; k < 5; k++) {
            readBack(caps, s, k, new byte[16384]);
        }
        assertEquals(2, bed.counter(RxeCounter.COMPLETER_RETRY_ERR), "one implicit-NAK retry, one timeout");
    }

    /** SEND, RNR NAK (timer 14), the resend after the RNR timer, RNR NAK again: rnr_retry=1 is used up. */
    @Test
    void requesterRnrRetryExceeded() throws Exception {
        Conn c = new Conn(0, 0, 0);
        c.rnrRetry = 1;
        c.timeout = 20;
        Side s = replayRequester("verbs_rnr_nak", Set.of(), c);
        WorkCompletion w = s.next(5000);
        assertEquals(WcStatus.RNR_RETRY_EXC_ERR, w.status());
        assertEquals(2, bed.counter(RxeCounter.RCVD_RNR_ERR));
        assertEquals(1, bed.counter(RxeCounter.RNR_NAK_RETRY_ERR));
        assertEquals(QpState.ERR, s.qp.query().state());
    }

    @Test
    void requesterBadRkey() throws Exception {
        Conn c = new Conn(0, 0, 0);
        c.timeout = 20;
        Side s = replayRequester("verbs_bad_rkey_nak", Set.of(), c);
        assertEquals(WcStatus.REM_ACCESS_ERR, s.next(5000).status());
        assertEquals(QpState.ERR, s.qp.query().state());
    }

    @Test
    void requesterReadPastMrEnd() throws Exception {
        Conn c = new Conn(0, 0, 0);
        c.timeout = 20;
        Side s = replayRequester("verbs_read_bad_len_nak", Set.of(), c);
        assertEquals(WcStatus.REM_ACCESS_ERR, s.next(5000).status());
        assertEquals(QpState.ERR, s.qp.query().state());
    }
}
