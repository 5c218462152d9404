package org.jrdma.ib.cm.wire;

import org.jrdma.ib.cm.ib.IbCmRejReason;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.function.Function;
import java.util.stream.Stream;

import org.jrdma.ib.core.Gid;
import org.jrdma.ib.mad.Mad;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every message with non-trivial values: the bytes where IBTA/Linux put them, and back. */
class CmRoundTripTest {
    static final int D = CmAttr.DATA;
    static final long TID = 0x0123456789abcdefL;

    static byte[] pattern(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed + 7 * i);
        }
        return b;
    }

    static void assertHeader(Mad m, int attr) {
        assertEquals(1, m.baseVersion());
        assertEquals(0x07, m.mgmtClass());
        assertEquals(2, m.classVersion());
        assertEquals(0x03, m.method());
        assertEquals(0, m.status());
        assertEquals(0, m.classSpecific());
        assertEquals(TID, m.tid());
        assertEquals(attr, m.attrId());
        assertEquals(0, m.u16(18));
        assertEquals(0, m.attrMod());
    }

    @Test
    void header() {
        Mad m = CmAttr.header(CmAttr.APR, TID);
        assertHeader(m, 0x001a);
        assertEquals(Mad.SIZE, m.bytes().length);
        assertTrue(Arrays.equals(new byte[Mad.DATA_SIZE], Arrays.copyOfRange(m.bytes(), 24, 256)));
        assertEquals("0x001b", CmAttr.name(0x1b));
    }

    static CmPath path(int seed) {
        return new CmPath().localLid(0x1234 + seed).remoteLid(0x5678 + seed)
                .localGid(Gid.parse("fe80::2:c903:0:" + (seed + 1))).remoteGid(Gid.parse("2001:db8::" + (seed + 9)))
                .flowLabel(0xabcde - seed).packetRate(0x2a - seed).trafficClass(0xb8 + seed).hopLimit(0xfe - seed)
                .sl(0xd - seed).subnetLocal(seed == 0).localAckTimeout(0x1e - seed);
    }

    static CmReq req() {
        return new CmReq().localCommId(0x11223344).serviceId(0x0102030405060708L).localCaGuid(0x1112131415161718L)
                .localQkey(0x80010000).localQpn(0xabcdef).responderResources(0x12).localEecn(0x123456)
                .initiatorDepth(0x34).remoteEecn(0x654321).remoteCmResponseTimeout(0x15).transportType(2)
                .flowControl(true).startingPsn(0xfedcba).localCmResponseTimeout(0x0a).retryCount(5).pkey(0x8001)
                .pathMtu(5).rdcExists(true).rnrRetryCount(6).maxCmRetries(0xc).srq(true).extendedTransportType(1)
                .primaryPath(path(0)).alternatePath(path(1)).privateData(pattern(92, 1));
    }

    @Test
    void reqBytes() {
        Mad m = req().encode(TID);
        assertHeader(m, CmAttr.REQ);
        assertEquals(0x11223344L, m.u32(D));
        assertEquals(0, m.u32(D + 4));
        assertEquals(0x0102030405060708L, m.u64(D + 8));
        assertEquals(0x1112131415161718L, m.u64(D + 16));
        assertEquals(0, m.u32(D + 24));
        assertEquals(0x80010000L, m.u32(D + 28));
        assertEquals(0xabcdef12L, m.u32(D + 32));
        assertEquals(0x12345634L, m.u32(D + 36));
        assertEquals(0x654321adL, m.u32(D + 40)); // 10101 10 1
        assertEquals(0xfedcba55L, m.u32(D + 44)); // 01010 101
        assertEquals(0x8001, m.u16(D + 48));
        assertEquals(0x5e, m.u8(D + 50));         // 0101 1 110
        assertEquals(0xc9, m.u8(D + 51));         // 1100 1 001
        int p = D + 52;
        assertEquals(0x1234, m.u16(p));
        assertEquals(0x5678, m.u16(p + 2));
        assertArrayEquals(Gid.parse("fe80::2:c903:0:1").raw(), Arrays.copyOfRange(m.bytes(), p + 4, p + 20));
        assertArrayEquals(Gid.parse("2001:db8::9").raw(), Arrays.copyOfRange(m.bytes(), p + 20, p + 36));
        assertEquals(0xabcde02aL, m.u32(p + 36));
        assertEquals(0xb8, m.u8(p + 40));
        assertEquals(0xfe, m.u8(p + 41));
        assertEquals(0xd8, m.u8(p + 42));         // 1101 1 000
        assertEquals(0xf0, m.u8(p + 43));         // 11110 000
        int a = D + 96;
        assertEquals(0x1235, m.u16(a));
        assertEquals(0xabcdd029L, m.u32(a + 36));
        assertEquals(0xc0, m.u8(a + 42));         // 1100 0 000
        assertEquals(0xe8, m.u8(a + 43));         // 11101 000
        assertArrayEquals(pattern(92, 1), Arrays.copyOfRange(m.bytes(), D + 140, 256));

        CmReq r = CmReq.decode(m);
        assertEquals(0x11223344, r.localCommId());
        assertEquals(0x0102030405060708L, r.serviceId());
        assertEquals(0x1112131415161718L, r.localCaGuid());
        assertEquals(0x80010000, r.localQkey());
        assertEquals(0xabcdef, r.localQpn());
        assertEquals(0x12, r.responderResources());
        assertEquals(0x123456, r.localEecn());
        assertEquals(0x34, r.initiatorDepth());
        assertEquals(0x654321, r.remoteEecn());
        assertEquals(0x15, r.remoteCmResponseTimeout());
        assertEquals(2, r.transportType());
        assertTrue(r.flowControl());
        assertEquals(0xfedcba, r.startingPsn());
        assertEquals(0x0a, r.localCmResponseTimeout());
        assertEquals(5, r.retryCount());
        assertEquals(0x8001, r.pkey());
        assertEquals(5, r.pathMtu());
        assertTrue(r.rdcExists());
        assertEquals(6, r.rnrRetryCount());
        assertEquals(0xc, r.maxCmRetries());
        assertTrue(r.srq());
        assertEquals(1, r.extendedTransportType());
        assertEquals(path(0), r.primaryPath());
        assertEquals(path(1), r.alternatePath());
        assertArrayEquals(pattern(92, 1), r.privateData());
        assertArrayEquals(m.bytes(), r.encode(TID).bytes());
    }

    @Test
    void reqWithoutAlternatePathLeavesItZero() {
        Mad m = req().alternatePath(null).encode(TID);
        assertTrue(Arrays.equals(new byte[44], Arrays.copyOfRange(m.bytes(), D + 96, D + 140)));
        assertNull(CmReq.decode(m).alternatePath());
        // a single non-zero byte makes it present
        m.u8(D + 96 + 43, 1 << 3);
        assertEquals(1, CmReq.decode(m).alternatePath().localAckTimeout());
    }

    @Test
    void repBytes() {
        CmRep rep = new CmRep().localCommId(0xa1a2a3a4).remoteCommId(0x11223344).localQkey(0x12345678)
                .localQpn(0xfedcba).localEecn(0x0abcde).startingPsn(0x765432).responderResources(0x80)
                .initiatorDepth(0x40).targetAckDelay(0x13).failoverAccepted(CmRep.FAILOVER_REJECTED).flowControl(true)
                .rnrRetryCount(5).srq(true).localCaGuid(0xf1f2f3f4f5f6f7f8L).privateData(pattern(196, 3));
        Mad m = rep.encode(TID);
        assertHeader(m, CmAttr.REP);
        assertEquals(0xa1a2a3a4L, m.u32(D));
        assertEquals(0x11223344L, m.u32(D + 4));
        assertEquals(0x12345678L, m.u32(D + 8));
        assertEquals(0xfedcba00L, m.u32(D + 12));
        assertEquals(0x0abcde00L, m.u32(D + 16));
        assertEquals(0x76543200L, m.u32(D + 20));
        assertEquals(0x80, m.u8(D + 24));
        assertEquals(0x40, m.u8(D + 25));
        assertEquals(0x9d, m.u8(D + 26)); // 10011 10 1
        assertEquals(0xb0, m.u8(D + 27)); // 101 1 0000
        assertEquals(0xf1f2f3f4f5f6f7f8L, m.u64(D + 28));
        assertArrayEquals(pattern(196, 3), Arrays.copyOfRange(m.bytes(), D + 36, 256));
        CmRep r = CmRep.decode(m);
        assertEquals(0xa1a2a3a4, r.localCommId());
        assertEquals(0x11223344, r.remoteCommId());
        assertEquals(0x12345678, r.localQkey());
        assertEquals(0xfedcba, r.localQpn());
        assertEquals(0x0abcde, r.localEecn());
        assertEquals(0x765432, r.startingPsn());
        assertEquals(0x80, r.responderResources());
        assertEquals(0x40, r.initiatorDepth());
        assertEquals(0x13, r.targetAckDelay());
        assertEquals(2, r.failoverAccepted());
        assertTrue(r.flowControl());
        assertEquals(5, r.rnrRetryCount());
        assertTrue(r.srq());
        assertEquals(0xf1f2f3f4f5f6f7f8L, r.localCaGuid());
        assertArrayEquals(m.bytes(), r.encode(TID).bytes());
    }

    @Test
    void rtuDreqDrepBytes() {
        Mad rtu = new CmRtu().localCommId(0xdeadbeef).remoteCommId(0x01020304).privateData(pattern(224, 5)).encode(TID);
        assertHeader(rtu, CmAttr.RTU);
        assertEquals(0xdeadbeefL, rtu.u32(D));
        assertEquals(0x01020304L, rtu.u32(D + 4));
        assertArrayEquals(pattern(224, 5), Arrays.copyOfRange(rtu.bytes(), D + 8, 256));
        CmRtu r = CmRtu.decode(rtu);
        assertEquals(0xdeadbeef, r.localCommId());
        assertEquals(0x01020304, r.remoteCommId());
        assertArrayEquals(rtu.bytes(), r.encode(TID).bytes());

        Mad dreq = new CmDreq().localCommId(0x0a0b0c0d).remoteCommId(0xf0e0d0c0).remoteQpn(0xc0ffee)
                .privateData(pattern(220, 6)).encode(TID);
        assertHeader(dreq, CmAttr.DREQ);
        assertEquals(0xc0ffee00L, dreq.u32(D + 8));
        assertArrayEquals(pattern(220, 6), Arrays.copyOfRange(dreq.bytes(), D + 12, 256));
        CmDreq q = CmDreq.decode(dreq);
        assertEquals(0x0a0b0c0d, q.localCommId());
        assertEquals(0xf0e0d0c0, q.remoteCommId());
        assertEquals(0xc0ffee, q.remoteQpn());
        assertArrayEquals(dreq.bytes(), q.encode(TID).bytes());

        Mad drep = new CmDrep().localCommId(0x55667788).remoteCommId(0x99aabbcc).privateData(pattern(224, 7)).encode(TID);
        assertHeader(drep, CmAttr.DREP);
        CmDrep p = CmDrep.decode(drep);
        assertEquals(0x55667788, p.localCommId());
        assertEquals(0x99aabbcc, p.remoteCommId());
        assertArrayEquals(pattern(224, 7), p.privateData());
        assertArrayEquals(drep.bytes(), p.encode(TID).bytes());
    }

    @Test
    void mraBytes() {
        Mad m = new CmMra().localCommId(0x01010101).remoteCommId(0x02020202).messageMraed(CmMra.MSG_OTHER)
                .serviceTimeout(0x1b).privateData(pattern(222, 8)).encode(TID);
        assertHeader(m, CmAttr.MRA);
        assertEquals(0x80, m.u8(D + 8));
        assertEquals(0xd8, m.u8(D + 9)); // 11011 000
        assertArrayEquals(pattern(222, 8), Arrays.copyOfRange(m.bytes(), D + 10, 256));
        CmMra r = CmMra.decode(m);
        assertEquals(0x01010101, r.localCommId());
        assertEquals(0x02020202, r.remoteCommId());
        assertEquals(2, r.messageMraed());
        assertEquals(0x1b, r.serviceTimeout());
        assertArrayEquals(m.bytes(), r.encode(TID).bytes());
    }

    @Test
    void rejBytes() {
        Mad m = new CmRej().localCommId(0x31323334).remoteCommId(0x41424344).messageRejected(CmMra.MSG_REP)
                .rejectedInfoLength(72).reason(IbCmRejReason.INVALID_RNR_RETRY).ari(pattern(72, 9))
                .privateData(pattern(148, 10)).encode(TID);
        assertHeader(m, CmAttr.REJ);
        assertEquals(0x40, m.u8(D + 8));
        assertEquals(0x90, m.u8(D + 9)); // 72 << 1
        assertEquals(29, m.u16(D + 10));
        assertArrayEquals(pattern(72, 9), Arrays.copyOfRange(m.bytes(), D + 12, D + 84));
        assertArrayEquals(pattern(148, 10), Arrays.copyOfRange(m.bytes(), D + 84, 256));
        CmRej r = CmRej.decode(m);
        assertEquals(0x31323334, r.localCommId());
        assertEquals(0x41424344, r.remoteCommId());
        assertEquals(1, r.messageRejected());
        assertEquals(72, r.rejectedInfoLength());
        assertEquals(29, r.reason());
        assertEquals(IbCmRejReason.INVALID_RNR_RETRY, IbCmRejReason.fromCode(r.reason()));
        assertArrayEquals(m.bytes(), r.encode(TID).bytes());
        // an unknown reason is kept
        m.u16(D + 10, 0x1234);
        assertEquals(0x1234, CmRej.decode(m).reason());
        assertThrows(IllegalArgumentException.class, () -> new CmRej().rejectedInfoLength(73));
    }

    @Test
    void sidrBytes() {
        Mad q = new SidrReq().requestId(0x77777777).pkey(0x7fff).serviceId(0x0000000001110000L | 4791)
                .privateData(pattern(216, 11)).encode(TID);
        assertHeader(q, CmAttr.SIDR_REQ);
        assertEquals(0x77777777L, q.u32(D));
        assertEquals(0x7fff, q.u16(D + 4));
        assertEquals(0, q.u16(D + 6));
        assertEquals(0x00000000011112b7L, q.u64(D + 8));
        assertArrayEquals(pattern(216, 11), Arrays.copyOfRange(q.bytes(), D + 16, 256));
        SidrReq sq = SidrReq.decode(q);
        assertEquals(0x77777777, sq.requestId());
        assertEquals(0x7fff, sq.pkey());
        assertEquals(0x00000000011112b7L, sq.serviceId());
        assertArrayEquals(q.bytes(), sq.encode(TID).bytes());

        Mad p = new SidrRep().requestId(0x77777777).status(SidrRep.REDIRECT).additionalInfoLength(72).qpn(0x123abc)
                .serviceId(0x0000000001110000L).qkey(0x11111111).info(pattern(72, 12)).privateData(pattern(136, 13))
                .encode(TID);
        assertHeader(p, CmAttr.SIDR_REP);
        assertEquals(4, p.u8(D + 4));
        assertEquals(72, p.u8(D + 5));
        assertEquals(0, p.u16(D + 6));
        assertEquals(0x123abc00L, p.u32(D + 8));
        assertEquals(0x0000000001110000L, p.u64(D + 12));
        assertEquals(0x11111111L, p.u32(D + 20));
        assertArrayEquals(pattern(72, 12), Arrays.copyOfRange(p.bytes(), D + 24, D + 96));
        assertArrayEquals(pattern(136, 13), Arrays.copyOfRange(p.bytes(), D + 96, 256));
        SidrRep sp = SidrRep.decode(p);
        assertEquals(0x77777777, sp.requestId());
        assertEquals(4, sp.status());
        assertEquals(72, sp.additionalInfoLength());
        assertEquals(0x123abc, sp.qpn());
        assertEquals(0x0000000001110000L, sp.serviceId());
        assertEquals(0x11111111, sp.qkey());
        assertArrayEquals(pattern(72, 12), sp.info());
        assertArrayEquals(p.bytes(), sp.encode(TID).bytes());
    }

    static Stream<Arguments> privateDataSetters() {
        return Stream.of(
                Arguments.of("REQ", 92, (Function<byte[], Object>) b -> new CmReq().privateData(b),
                        (Function<Object, byte[]>) o -> ((CmReq) o).privateData(), 140),
                Arguments.of("MRA", 222, (Function<byte[], Object>) b -> new CmMra().privateData(b),
                        (Function<Object, byte[]>) o -> ((CmMra) o).privateData(), 10),
                Arguments.of("REJ", 148, (Function<byte[], Object>) b -> new CmRej().privateData(b),
                        (Function<Object, byte[]>) o -> ((CmRej) o).privateData(), 84),
                Arguments.of("REP", 196, (Function<byte[], Object>) b -> new CmRep().privateData(b),
                        (Function<Object, byte[]>) o -> ((CmRep) o).privateData(), 36),
                Arguments.of("RTU", 224, (Function<byte[], Object>) b -> new CmRtu().privateData(b),
                        (Function<Object, byte[]>) o -> ((CmRtu) o).privateData(), 8),
                Arguments.of("DREQ", 220, (Function<byte[], Object>) b -> new CmDreq().privateData(b),
                        (Function<Object, byte[]>) o -> ((CmDreq) o).privateData(), 12),
                Arguments.of("DREP", 224, (Function<byte[], Object>) b -> new CmDrep().privateData(b),
                        (Function<Object, byte[]>) o -> ((CmDrep) o).privateData(), 8),
                Arguments.of("SIDR_REQ", 216, (Function<byte[], Object>) b -> new SidrReq().privateData(b),
                        (Function<Object, byte[]>) o -> ((SidrReq) o).privateData(), 16),
                Arguments.of("SIDR_REP", 136, (Function<byte[], Object>) b -> new SidrRep().privateData(b),
                        (Function<Object, byte[]>) o -> ((SidrRep) o).privateData(), 96));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("privateDataSetters")
    void privateDataLimits(String msg, int limit, Function<byte[], Object> set, Function<Object, byte[]> get, int off) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> set.apply(new byte[limit + 1]));
        assertTrue(e.getMessage().contains(msg + " private data"), e.getMessage());
        assertTrue(e.getMessage().contains("at most " + limit + " bytes"), e.getMessage());
        assertTrue(e.getMessage().contains(Integer.toString(limit + 1)), e.getMessage());
        assertArrayEquals(pattern(limit, 2), get.apply(set.apply(pattern(limit, 2))));
        byte[] padded = get.apply(set.apply(new byte[] {1, 2, 3}));
        assertEquals(limit, padded.length);
        assertArrayEquals(new byte[] {1, 2, 3}, Arrays.copyOf(padded, 3));
        assertArrayEquals(new byte[limit - 3], Arrays.copyOfRange(padded, 3, limit));
        assertArrayEquals(new byte[limit], get.apply(set.apply(null)));
        // the fixed part plus the private data is the whole 232-byte CM message
        assertEquals(Mad.DATA_SIZE, off + limit);
    }

    @Test
    void privateDataIsCopied() {
        byte[] b = {1, 2, 3};
        CmRtu r = new CmRtu().privateData(b);
        b[0] = 9;
        assertEquals(1, r.privateData()[0]);
        r.privateData()[1] = 9;
        assertEquals(2, r.privateData()[1]);
    }

    @Test
    void arisAndInfoLimits() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new CmRej().ari(new byte[73]));
        assertTrue(e.getMessage().contains("at most 72"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new SidrRep().info(new byte[73]));
        assertTrue(e.getMessage().contains("at most 72"), e.getMessage());
    }

    @Test
    void fieldRangesAreChecked() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new CmReq().localQpn(1 << 24));
        assertTrue(e.getMessage().contains("local QPN"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new CmReq().startingPsn(-1));
        assertThrows(IllegalArgumentException.class, () -> new CmReq().remoteCmResponseTimeout(32));
        assertThrows(IllegalArgumentException.class, () -> new CmReq().retryCount(8));
        assertThrows(IllegalArgumentException.class, () -> new CmReq().maxCmRetries(16));
        assertThrows(IllegalArgumentException.class, () -> new CmReq().pkey(0x10000));
        assertThrows(IllegalArgumentException.class, () -> new CmPath().flowLabel(0x100000));
        assertThrows(IllegalArgumentException.class, () -> new CmPath().packetRate(64));
        assertThrows(IllegalArgumentException.class, () -> new CmPath().sl(16));
        assertThrows(IllegalArgumentException.class, () -> new CmRep().targetAckDelay(32));
        assertThrows(IllegalArgumentException.class, () -> new CmRep().rnrRetryCount(8));
        assertThrows(IllegalArgumentException.class, () -> new CmMra().messageMraed(4));
        assertThrows(IllegalArgumentException.class, () -> new CmDreq().remoteQpn(1 << 24));
        assertThrows(IllegalArgumentException.class, () -> new SidrRep().qpn(1 << 24));
        assertThrows(NullPointerException.class, () -> new CmReq().primaryPath(null));
    }

    @Test
    void decodeChecksTheAttribute() {
        Mad rep = new CmRep().encode(1);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CmReq.decode(rep));
        assertTrue(e.getMessage().contains("REQ") && e.getMessage().contains("REP"), e.getMessage());
        Mad notCm = new CmRtu().encode(1).mgmtClass(Mad.CLASS_SUBN_ADM);
        assertThrows(IllegalArgumentException.class, () -> CmRtu.decode(notCm));
    }

    @Test
    void reservedBitsAreZeroAndIgnored() {
        // every reserved bit of a REQ set in the capture-like MAD: decode ignores them, encode clears them
        Mad m = req().alternatePath(null).encode(TID);
        byte[] clean = m.bytes().clone();
        m.u32(D + 4, 0xffffffffL);
        m.u32(D + 24, 0xffffffffL);
        m.u8(D + 52 + 38, m.u8(D + 52 + 38) | 0x0f);
        m.u8(D + 52 + 39, m.u8(D + 52 + 39) | 0xc0);
        m.u8(D + 52 + 42, m.u8(D + 52 + 42) | 0x07);
        m.u8(D + 52 + 43, m.u8(D + 52 + 43) | 0x07);
        assertArrayEquals(clean, CmReq.decode(m).encode(TID).bytes());
        Mad rep = new CmRep().localQpn(0xffffff).encode(TID);
        byte[] repClean = rep.bytes().clone();
        rep.u8(D + 15, 0xff);
        rep.u8(D + 27, 0x0f);
        assertArrayEquals(repClean, CmRep.decode(rep).encode(TID).bytes());
    }

    @Test
    void rejReasons() {
        assertEquals(34, IbCmRejReason.values().length);
        assertEquals(1, IbCmRejReason.NO_QP.code());
        assertEquals(IbCmRejReason.CONSUMER_DEFINED, IbCmRejReason.fromCode(28));
        assertEquals(IbCmRejReason.INVALID_RNR_RETRY, IbCmRejReason.fromCode(29));
        assertEquals(IbCmRejReason.DUPLICATE_LOCAL_COMM_ID, IbCmRejReason.fromCode(30));
        assertEquals(IbCmRejReason.INVALID_CLASS_VERSION, IbCmRejReason.fromCode(31));
        assertEquals(IbCmRejReason.INVALID_ALT_FLOW_LABEL, IbCmRejReason.fromCode(33));
        assertEquals(IbCmRejReason.VENDOR_OPTION_NOT_SUPPORTED, IbCmRejReason.fromCode(35));
        assertNull(IbCmRejReason.find(34));
        assertThrows(IllegalArgumentException.class, () -> IbCmRejReason.fromCode(0));
        assertThrows(IllegalArgumentException.class, () -> IbCmRejReason.fromCode(34));
        assertThrows(IllegalArgumentException.class, () -> IbCmRejReason.fromCode(36));
        for (IbCmRejReason r : IbCmRejReason.values()) {
            assertEquals(r, IbCmRejReason.fromCode(r.code()));
        }
    }

    @Test
    void timeouts() {
        assertEquals(1, CmTimeout.toMs(0));
        assertEquals(1, CmTimeout.toMs(8));
        assertEquals(2, CmTimeout.toMs(9));
        assertEquals(4096, CmTimeout.toMs(20)); // CMA_CM_RESPONSE_TIMEOUT
        assertEquals(1 << 23, CmTimeout.toMs(31));
        assertEquals(4096L, CmTimeout.toNanos(0));
        assertEquals(4096L << 20, CmTimeout.toNanos(20));
        assertThrows(IllegalArgumentException.class, () -> CmTimeout.toMs(32));
        assertThrows(IllegalArgumentException.class, () -> CmTimeout.toMs(-1));
        // rxe's local_ca_ack_delay 15 and rdma_cm's CMA_IBOE_PACKET_LIFETIME 18 give the captured 0x13
        assertEquals(19, CmTimeout.ackTimeout(15, 18));
        assertEquals(19, CmTimeout.ackTimeout(18, 17)); // max(18, 17 + 1), rounded up: the other is within 50%
        assertEquals(16, CmTimeout.ackTimeout(16, 10));
        assertEquals(31, CmTimeout.ackTimeout(0, 31));
    }
}
